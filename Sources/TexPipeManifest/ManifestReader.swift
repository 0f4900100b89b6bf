internal import Foundation
internal import TexPipeParameters

/// The structural pass over the manifest's JSON.
struct ManifestReader {
    var file: String
    var directory: String
    var diagnostics: [Diagnostic] = []

    mutating func error(_ path: JSONPath?, _ message: String, file: String? = nil) {
        diagnostics.append(Diagnostic(file: file ?? self.file, path: path, message))
    }

    mutating func object(_ v: JSON, at path: JSONPath, keys: [String]) -> JSONObject? {
        guard case .object(let o) = v else {
            error(path, Say.expected("an object", found: v))
            return nil
        }
        for k in o.keys where !keys.contains(k) { error(path.key(k), Say.unknownKey(k, valid: keys)) }
        return o
    }

    mutating func string(_ o: JSONObject, _ key: String, at path: JSONPath, required: Bool = true) -> String? {
        guard let v = o[key] else {
            if required { error(path, Say.missing(key, expected: "a string")) }
            return nil
        }
        guard case .string(let s) = v, !s.isEmpty else {
            error(path.key(key), Say.expected("a non-empty string", found: v))
            return nil
        }
        return s
    }

    mutating func strings(_ o: JSONObject, _ key: String, at path: JSONPath, required: Bool) -> [String]? {
        guard let v = o[key] else {
            if required { error(path, Say.missing(key, expected: "an array of glob strings")) }
            return required ? nil : []
        }
        guard case .array(let items) = v, !items.isEmpty || !required else {
            error(path.key(key), Say.expected("a non-empty array of glob strings", found: v))
            return nil
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item, !s.isEmpty else {
                error(path.key(key).index(i), Say.expected("a non-empty string", found: item))
                continue
            }
            out.append(s)
        }
        return out
    }

    mutating func read(_ json: JSON) -> Manifest? {
        let root = JSONPath.root
        guard let top = object(json, at: root, keys: Manifest.topKeys) else { return nil }
        switch top["version"] {
        case nil: error(root, Say.missing("version", expected: "1"))
        case .number(1)?: break
        case let v?: error(root.key("version"), Say.expected("1", found: v))
        }
        if let v = top["$schema"], case .string = v {
        } else if let v = top["$schema"] {
            error(root.key("$schema"), Say.expected("a string (the schema editors use)", found: v))
        }
        var output = "build"
        if top["output"] != nil, let o = string(top, "output", at: root) { output = o }
        let outputRoot = URL(fileURLWithPath: output, relativeTo: URL(fileURLWithPath: directory + "/"))
            .standardizedFileURL.path
        var pipelines: [PipelineSpec] = []
        switch top["pipelines"] {
        case nil:
            error(root, Say.missing("pipelines", expected: "a non-empty array of pipelines"))
        case .array(let items)? where !items.isEmpty:
            var names: [String: Int] = [:]
            for (i, item) in items.enumerated() {
                let path = root.key("pipelines").index(i)
                guard let p = pipeline(item, index: i, at: path) else { continue }
                if let first = names[p.name] {
                    error(path.key("name"), Say.duplicatePipeline(p.name, first: first))
                } else {
                    names[p.name] = i
                }
                pipelines.append(p)
            }
        case let v?:
            error(root.key("pipelines"), Say.expected("a non-empty array of pipelines", found: v))
        }
        return Manifest(
            file: file, directory: directory, output: output, outputRoot: outputRoot, pipelines: pipelines)
    }

    /// One pipeline, read in its steps: its name and inputs, its settings, its stages, its kind (an
    /// atlas, an array, a volume or models), then its output template's placeholders.

    static func isSafeName(_ s: String) -> Bool {
        guard let f = s.first, f != "." else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }
}
