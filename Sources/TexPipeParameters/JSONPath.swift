/// A position in the manifest, printed as `pipelines[1].stages[2].radius`.
/// Built from integer indices, never from Foundation's "Index 1" coding keys.
public struct JSONPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()

    public func key(_ k: String) -> JSONPath { JSONPath(components + [.key(k)]) }
    public func index(_ i: Int) -> JSONPath { JSONPath(components + [.index(i)]) }

    public var description: String {
        var s = ""
        for c in components {
            switch c {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s.isEmpty ? "(top level)" : s
    }

    /// Document-like order: indices compare as numbers, so `[2]` sorts before `[10]`.
    public static func < (l: JSONPath, r: JSONPath) -> Bool {
        for (a, b) in zip(l.components, r.components) where a != b {
            switch (a, b) {
            case (.index(let x), .index(let y)): return x < y
            case (.key(let x), .key(let y)): return x < y
            case (.index, .key): return true
            case (.key, .index): return false
            }
        }
        return l.components.count < r.components.count
    }
}

/// The nearest valid name for a misspelled one (Levenshtein distance), for "did you mean".
public enum Suggest {
    public static func nearest(_ word: String, in candidates: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (String, Int)?
        for c in candidates {
            let d = distance(w, Array(c.lowercased()))
            if d <= max(2, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        var cur = prev
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[b.count]
    }
}
