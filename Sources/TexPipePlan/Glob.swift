internal import Foundation
internal import TexPipePixels

/// File globs: `*` and `?` within one path segment, `**` across segments (zero or more
/// folders), `{a,b}` alternatives (nestable), `[abc]` / `[a-z]` classes. docs/manifest.md.
/// `*` and `?` do not match a leading `.` (as in a shell). Directory symlinks are not
/// followed by `**`, so a symlink loop cannot make the walk endless.
public struct Glob: Sendable {
    public let pattern: String
    /// One alternative per brace expansion, each split into segments (none when there would be
    /// more than `maxAlternatives`).
    let alternatives: [[String]]
    /// The same segments, each read once for all the names it is matched against.
    let segments: [[Segment]]
    /// Whether the braces expand into more than `maxAlternatives` patterns: each group multiplies
    /// the others, so a few hundred bytes of braces would expand into gigabytes. The planner
    /// refuses such a glob; unrefused, it matches nothing.
    public let tooManyAlternatives: Bool

    /// The most patterns a glob's braces may expand into.
    public static let maxAlternatives = 256

    public init(_ pattern: String) {
        self.pattern = pattern
        let expanded = Glob.expandBraces(pattern, limit: Glob.maxAlternatives)
        tooManyAlternatives = expanded == nil
        alternatives = (expanded ?? []).map { alt in
            alt.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        }
        segments = alternatives.map { $0.map(Segment.init) }
    }

    /// The leading segments without wildcards: where the walk starts, and what `{path}`
    /// is relative to.
    static func fixedPrefix(_ segments: [String]) -> [String] {
        Array(segments.prefix { !$0.contains(where: { "*?[".contains($0) }) })
    }

    /// A match: the file's path relative to `base`, and its folder relative to the fixed prefix.
    public struct Match: Sendable, Hashable {
        public var relativePath: String
        public var folder: String
    }

    /// Every file under `base` matching the pattern, sorted, each once.
    public func matches(in base: String) -> [Match] {
        // Keyed by bytes: `café` written with one code point and with two are equal Strings, but
        // two files (Linux keeps names as bytes), and each is an input.
        var found: [PathKey: Match] = [:]
        for (segments, compiled) in zip(alternatives, self.segments) {
            let prefix = Glob.fixedPrefix(segments)
            let rest = compiled[prefix.count...]
            let start = prefix.joined(separator: "/")
            if rest.isEmpty {
                // No wildcard at all: a literal file.
                if isFile(base + "/" + start) {
                    let folder = ""
                    found[PathKey(start)] = Match(relativePath: start, folder: folder)
                }
                continue
            }
            walk(base: base, dir: start, rest: rest, relativeToPrefix: "") { rel, folder in
                let path = start.isEmpty ? rel : start + "/" + rel
                let key = PathKey(path)
                if found[key] == nil { found[key] = Match(relativePath: path, folder: folder) }
            }
        }
        return found.values.sorted(by: Glob.pathOrder)
    }

    /// The folders (absolute) where a file matching the pattern could appear: the fixed prefix's
    /// folder, and every folder below it (dot folders and symlinks aside) when the pattern goes
    /// deeper than one level. What `texpipe watch` watches for new inputs.
    public func folders(in base: String) -> [String] {
        var out = Set<String>()
        for segments in alternatives {
            let prefix = Glob.fixedPrefix(segments)
            let rest = segments.dropFirst(prefix.count)
            let start = ([base] + (rest.isEmpty ? prefix.dropLast() : prefix)).joined(separator: "/")
            out.insert(start)
            guard rest.count > 1 else { continue }
            var stack = [start]
            while let dir = stack.popLast() {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where !name.hasPrefix(".")
                {
                    let path = dir + "/" + name
                    var st = stat()
                    guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { continue }
                    if out.insert(path).inserted { stack.append(path) }
                }
            }
        }
        return out.sorted()
    }

    private func walk(
        base: String, dir: String, rest: ArraySlice<Segment>, relativeToPrefix: String,
        _ emit: (_ rel: String, _ folder: String) -> Void
    ) {
        guard let first = rest.first else { return }
        let full = dir.isEmpty ? base : base + "/" + dir
        // Types from readdir: a stat per file only for symlinks and what the file system leaves unsaid.
        let entries = Folder.entries(full)
        func join(_ a: String, _ b: String) -> String { a.isEmpty ? b : a + "/" + b }
        if first.text == "**" {
            // Zero folders…
            walk(base: base, dir: dir, rest: rest.dropFirst(), relativeToPrefix: relativeToPrefix, emit)
            // …or one more, then still `**`.
            for (name, kind) in entries where !name.hasPrefix(".") && kind == .directory {
                walk(
                    base: base, dir: join(dir, name), rest: rest,
                    relativeToPrefix: join(relativeToPrefix, name)
                ) { rel, folder in
                    emit(join(name, rel), folder)
                }
            }
            return
        }
        for (name, kind) in entries where first.matches(name) {
            let path = full + "/" + name
            if rest.count == 1 {
                // A broken or looping symlink named like an input is reported by its job,
                // not silently skipped.
                let file = kind == .file || (kind != .directory && (isFile(path) || isBrokenSymlink(path)))
                if file { emit(name, relativeToPrefix) }
            } else if kind == .directory || (kind != .file && isDirectory(path)) {
                walk(
                    base: base, dir: join(dir, name), rest: rest.dropFirst(),
                    relativeToPrefix: join(relativeToPrefix, name)
                ) { rel, folder in
                    emit(join(name, rel), folder)
                }
            }
        }
    }

    /// By path, and by bytes between paths that are equal as Strings (canonically equivalent).
    static func pathOrder(_ a: Match, _ b: Match) -> Bool {
        a.relativePath != b.relativePath
            ? a.relativePath < b.relativePath : a.relativePath.utf8.lexicographicallyPrecedes(b.relativePath.utf8)
    }

    /// Whether `relativePath` (from the manifest folder) matches the pattern; for `exclude`.
    public func matches(path relativePath: String) -> Bool {
        let parts = relativePath.split(separator: "/").map(String.init)
        return segments.contains { Glob.matchSegments($0[...], parts[...]) }
    }

    static func matchSegments(_ pattern: ArraySlice<Segment>, _ parts: ArraySlice<String>) -> Bool {
        guard let p = pattern.first else { return parts.isEmpty }
        if p.text == "**" {
            var rest = parts
            while true {
                if matchSegments(pattern.dropFirst(), rest) { return true }
                guard let f = rest.first, !f.hasPrefix(".") else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let f = parts.first, p.matches(f) else { return false }
        return matchSegments(pattern.dropFirst(), parts.dropFirst())
    }

    /// `*`, `?` and `[…]` within one segment.
    package static func matchSegment(_ pattern: String, _ name: String) -> Bool {
        Segment(pattern).matches(name)
    }

    /// One segment of a pattern, read once for every name it is matched against: its bytes when
    /// it is printable ASCII (nearly every pattern), where bytes are characters and nothing needs
    /// grapheme breaking.
    struct Segment: Sendable {
        let text: String
        let bytes: [UInt8]?

        init(_ text: String) {
            self.text = text
            bytes = Segment.printable(text.utf8) ? Array(text.utf8) : nil
        }

        static func printable<S: Sequence<UInt8>>(_ s: S) -> Bool { s.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }

        func matches(_ name: String) -> Bool {
            if let bytes {
                let ascii = name.utf8.withContiguousStorageIfAvailable { n in
                    Segment.printable(n) ? Glob.match(Bytes(bytes: bytes), n, Segment.byteSymbols) : nil
                }
                if let answer = ascii ?? nil { return answer }
            }
            // The name is read whole (a file name is short); the pattern only as far as the match
            // looks: about the name's length past any run of stars, and a `[` on to its `]` (to
            // the end, once, when it has none). A hostile pattern of 60 KB costs a short name
            // little more than a short pattern does.
            return Glob.match(
                LazyCharacters(text), Array(name),
                Symbols(star: "*", any: "?", open: "[", close: "]", not: "!", caret: "^", dash: "-", dot: "."))
        }

        static let byteSymbols: Symbols<UInt8> = {
            func b(_ c: Unicode.Scalar) -> UInt8 { UInt8(c.value) }
            return Symbols(
                star: b("*"), any: b("?"), open: b("["), close: b("]"), not: b("!"), caret: b("^"), dash: b("-"),
                dot: b("."))
        }()
    }

    struct Symbols<C: Sendable>: Sendable {
        var star, any, open, close, not, caret, dash, dot: C
    }

    /// A pattern as the matcher reads it: `has(i)` before `[i]`.
    protocol Pattern<Element> {
        associatedtype Element: Comparable
        mutating func has(_ i: Int) -> Bool
        /// Valid once `has(i)` has answered true.
        subscript(_ i: Int) -> Element { get }
    }

    struct Bytes: Pattern {
        let bytes: [UInt8]
        func has(_ i: Int) -> Bool { i < bytes.count }
        subscript(_ i: Int) -> UInt8 { bytes[i] }
    }

    /// A string's characters, broken into graphemes only as far as they are asked for.
    struct LazyCharacters: Pattern {
        var iterator: String.Iterator
        var read: [Character] = []
        var ended = false
        init(_ s: String) { iterator = s.makeIterator() }
        mutating func has(_ i: Int) -> Bool {
            while i >= read.count && !ended {
                if let c = iterator.next() { read.append(c) } else { ended = true }
            }
            return i < read.count
        }
        subscript(_ i: Int) -> Character { read[i] }
    }

    /// Every token but `*` matches exactly one character, so on a mismatch only the last `*`
    /// needs to take one character more: time linear in the name per `*`, never exponential (as
    /// trying every split for every `*` would be).
    static func match<P: Pattern, N: RandomAccessCollection<P.Element>>(
        _ pattern: P, _ n: N, _ s: Symbols<P.Element>
    ) -> Bool where N.Index == Int {
        var p = pattern
        let (start, count) = (n.startIndex, n.count)
        if count > 0 && n[start] == s.dot && !(p.has(0) && p[0] == s.dot) { return false }
        /// The first `]` at or after an index: remembered, so that a pattern of many `[` without
        /// their `]` is searched once, not once per step.
        var close: (from: Int, at: Int?) = (Int.max, nil)
        func closing(from k: Int) -> Int? {
            if close.from <= k, close.at.map({ $0 >= k }) ?? true { return close.at }
            var e = k
            while p.has(e) && p[e] != s.close { e += 1 }
            close = (k, p.has(e) ? e : nil)
            return close.at
        }
        /// The pattern index after the token at `i` when it matches the name's `c`, or nil.
        func step(_ i: Int, _ c: P.Element) -> Int? {
            if p[i] == s.any { return i + 1 }
            if p[i] == s.open, let close = closing(from: i + 1) {
                var k = i + 1
                let negate = k < close && (p[k] == s.not || p[k] == s.caret)
                if negate { k += 1 }
                var hit = false
                while k < close {
                    if k + 2 < close, p[k + 1] == s.dash {
                        if p[k] <= c && c <= p[k + 2] { hit = true }
                        k += 3
                    } else {
                        if p[k] == c { hit = true }
                        k += 1
                    }
                }
                return hit != negate ? close + 1 : nil
            }
            // A literal, `[` without its `]` included.
            return p[i] == c ? i + 1 : nil
        }
        var (i, j) = (0, 0)
        var star: (i: Int, j: Int)?
        while j < count {
            if p.has(i) && p[i] == s.star {
                star = (i, j)
                i += 1
            } else if p.has(i), let next = step(i, n[start + j]) {
                (i, j) = (next, j + 1)
            } else if let last = star {
                star = (last.i, last.j + 1)
                (i, j) = (last.i + 1, last.j + 1)
            } else {
                return false
            }
        }
        while p.has(i) && p[i] == s.star { i += 1 }
        return !p.has(i)
    }

    /// `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`; nil when there would be more than `limit`.
    /// A `{` without its `}` is literal, and so is everything after it; `,` and `}` outside a
    /// group are literal. The order is the first group's alternatives outermost.
    ///
    /// One pass over the pattern, the open groups kept on a stack of their own (nesting costs no
    /// call depth), each group's alternatives written out as it closes and a group of one
    /// alternative appended in place: the work is the pattern's length times at most `limit`
    /// patterns. (Expanding `head + part + tail` again for every part re-read the rest of the
    /// pattern at every group: 20,000 `{a}` groups, a 60 KB manifest, took 174 s, and deep nesting
    /// recursed once per level.)
    package static func expandBraces(_ s: String, limit: Int) -> [String]? {
        let c = Array(s)
        guard c.contains("{") else { return [s] }
        // Which `{` has its `}`: the nearest `}` after it with as many of each between.
        var matched = [Bool](repeating: false, count: c.count)
        var opened: [Int] = []
        for (k, ch) in c.enumerated() {
            if ch == "{" {
                opened.append(k)
            } else if ch == "}", let o = opened.popLast() {
                matched[o] = true
            }
        }
        /// A group being read: its alternatives so far, and the patterns of the one being read.
        struct Group {
            var done: [String] = []
            var current: [String] = [""]
        }
        var group = Group()
        var outer: [Group] = []
        var literal = ""
        func flush() {
            if literal.isEmpty { return }
            for i in group.current.indices { group.current[i] += literal }
            literal = ""
        }
        var k = 0
        while k < c.count {
            let ch = c[k]
            if ch == "{" && matched[k] {
                flush()
                outer.append(group)
                group = Group()
            } else if ch == "{" && outer.isEmpty {
                // No `}` of its own: literal from here to the end.
                literal += String(c[k...])
                break
            } else if ch == "," && !outer.isEmpty {
                flush()
                group.done += group.current
                group.current = [""]
                if group.done.count >= limit { return nil }
            } else if ch == "}" && !outer.isEmpty {
                // Inside a group every `}` closes the innermost one open.
                flush()
                let alternatives = group.done + group.current
                group = outer.removeLast()
                if alternatives.count == 1 {
                    for i in group.current.indices { group.current[i] += alternatives[0] }
                } else {
                    if group.current.count * alternatives.count > limit { return nil }
                    var product: [String] = []
                    product.reserveCapacity(group.current.count * alternatives.count)
                    for p in group.current {
                        for a in alternatives { product.append(p + a) }
                    }
                    group.current = product
                }
            } else {
                literal.append(ch)
            }
            k += 1
        }
        flush()
        return group.current.count > limit ? nil : group.current
    }

    // stat and lstat directly: FileManager's fileExists and attributes look up names in
    // /etc/passwd and /etc/group on every call — two opens per input in a plan.
    private func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFDIR
    }

    private func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    private func isBrokenSymlink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK && stat(path, &st) != 0
    }
}
