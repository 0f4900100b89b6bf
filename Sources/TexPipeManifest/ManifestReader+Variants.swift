internal import Foundation
internal import TexPipeParameters
internal import TexPipePixels

/// A pipeline's variants (a list, a file, or the product of lists) and its `distinct` check.
extension ManifestReader {
    mutating func variantFactors(_ json: JSON, at path: JSONPath) -> [[Variant]]? {
        guard case .object(let o) = json else { return variants(json, at: path).map { [$0] } }
        for k in o.keys where k != "product" { error(path.key(k), Say.unknownKey(k, valid: ["product"])) }
        guard case .array(let lists)? = o["product"], !lists.isEmpty else {
            error(path, Say.expected("\"product\": a non-empty array of variant lists", found: o["product"] ?? json))
            return nil
        }
        var factors: [[Variant]] = []
        for (i, list) in lists.enumerated() {
            guard let f = variants(list, at: path.key("product").index(i)) else { return nil }
            factors.append(f)
        }
        return factors
    }

    /// Every combination of the factors' rows, first factor outermost.
    mutating func product(_ factors: [[Variant]], at path: JSONPath) -> [Variant]? {
        var rows: [Variant] = [Variant(name: "", values: [:])]
        for (i, factor) in factors.enumerated() {
            var next: [Variant] = []
            for row in rows {
                for v in factor {
                    var merged = row
                    merged.name = row.name.isEmpty ? v.name : row.name + "-" + v.name
                    for (k, value) in v.values where k != "variant" {
                        if row.values[k] != nil {
                            error(path.key("product").index(i), Say.keyInTwoLists(k))
                            return nil
                        }
                        merged.values[k] = value
                    }
                    merged.values["variant"] = merged.name
                    next.append(merged)
                }
            }
            rows = next
        }
        var seen = Set<String>()
        for v in rows where !seen.insert(v.name).inserted {
            error(path, Say.productNameTwice(v.name))
            return nil
        }
        return rows
    }

    /// A list of variants: an inline array of objects, or the path of a JSON file holding one.
    mutating func variants(_ json: JSON, at path: JSONPath) -> [Variant]? {
        var items: [JSON]
        var itemFile = file
        var itemPath = path
        switch json {
        case .array(let a):
            items = a
        case .string(let rel):
            let full = URL(fileURLWithPath: rel, relativeTo: URL(fileURLWithPath: directory + "/")).standardizedFileURL
                .path
            guard let data = FileManager.default.contents(atPath: full) else {
                error(path, Say.unreadableVariants(rel))
                return nil
            }
            do {
                guard case .array(let a) = try JSONParser.parse(Array(data)) else {
                    error(nil, Say.variantsNotArray, file: rel)
                    return nil
                }
                items = a
                itemFile = rel
                itemPath = .root
            } catch {
                self.error(nil, Say.invalidJSON(error), file: rel)
                return nil
            }
        default:
            error(path, Say.expected("an array of variants or the path of a JSON file", found: json))
            return nil
        }
        var out: [Variant] = []
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let vp = itemPath.index(i)
            guard case .object(let o) = item else {
                error(vp, Say.expected("an object with a \"name\"", found: item), file: itemFile)
                continue
            }
            guard case .string(let name)? = o["name"] else {
                error(
                    vp,
                    o["name"] == nil
                        ? Say.missing("name", expected: "a string") : Say.expected("a string", found: o["name"]!),
                    file: itemFile)
                continue
            }
            if !Self.isSafeName(name) {
                error(
                    vp.key("name"),
                    Say.unsafeName("variant", name),
                    file: itemFile)
                continue
            }
            if let first = seen[name] {
                error(vp.key("name"), Say.duplicateVariant(name, first: first), file: itemFile)
                continue
            }
            seen[name] = i
            var values: [String: String] = ["variant": name]
            for key in o.keys where key != "name" {
                switch o[key]! {
                case .string(let s): values[key] = s
                case .number(let n): values[key] = JSON.format(n)
                case .bool(let b): values[key] = b ? "true" : "false"
                case let v: error(vp.key(key), Say.expected("a string, number or boolean", found: v), file: itemFile)
                }
                if Manifest.builtinPlaceholders.contains(key) {
                    error(
                        vp.key(key), Say.hidesBuiltin(key),
                        file: itemFile)
                }
            }
            out.append(Variant(name: name, values: values))
        }
        if items.isEmpty { error(path, Say.noVariants) }
        return out
    }

    static let distinctKeys = ["keys", "minDeltaE", "severity"]

    /// `distinct`: every pair of variants whose colors under `keys` are all closer than
    /// `minDeltaE` (CIEDE2000) is reported, as an error or a warning. A pair is told apart when
    /// any one key differs enough (a jersey with the same shirt but other shorts is distinct),
    /// so the pair's distance is its largest ΔE over the keys. With a `product`, the rows of the
    /// list that holds the keys are compared (two shirt numbers of one team are the same kit). docs/manifest.md.
    mutating func distinct(_ json: JSON, factors: [[Variant]]?, at path: JSONPath) {
        guard let o = object(json, at: path, keys: Self.distinctKeys) else { return }
        var keys: [String] = []
        switch o["keys"] {
        case .array(let items)?
        where !items.isEmpty && items.allSatisfy({ if case .string = $0 { true } else { false } }):
            keys = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        case nil: error(path, Say.missing("keys", expected: "an array of variant keys holding colors"))
        case let v?: error(path.key("keys"), Say.expected("a non-empty array of variant keys", found: v))
        }
        var minimum = 0.0
        switch o["minDeltaE"] {
        case .number(let d)? where d > 0 && d <= 200: minimum = d
        case nil: error(path, Say.missing("minDeltaE", expected: "a number in 0…200"))
        case let v?: error(path.key("minDeltaE"), Say.expected("a number in 0…200 (exclusive of 0)", found: v))
        }
        var severity = Diagnostic.Severity.error
        switch o["severity"] {
        case nil: break
        case .string("error")?: break
        case .string("warning")?: severity = .warning
        case let v?: error(path.key("severity"), Say.choice(["error", "warning"], found: v))
        }
        guard let factors else {
            error(path, Say.distinctWithoutVariants)
            return
        }
        guard !keys.isEmpty, minimum > 0 else { return }
        guard
            let variants = factors.first(where: { f in keys.allSatisfy { k in f.allSatisfy { $0.values[k] != nil } } })
        else {
            let missing = keys.first { k in !factors.contains { f in f.allSatisfy { $0.values[k] != nil } } }
            error(
                path.key("keys"),
                missing.map(Say.variantLacksKey) ?? Say.keysFromSeveralLists)
            return
        }
        var colors: [[Color]] = []
        for v in variants {
            var row: [Color] = []
            for k in keys {
                let text = v.values[k]!
                guard let c = Color(parsing: text) else {
                    error(path.key("keys"), "variant \"\(v.name)\" key \"\(k)\": " + Say.badColor(text))
                    return
                }
                row.append(c)
            }
            colors.append(row)
        }
        for i in variants.indices {
            for j in variants.indices where j > i {
                let distances = keys.indices.map { Lab.deltaE2000(colors[i][$0], colors[j][$0]) }
                guard let largest = distances.max(), largest < minimum else { continue }
                let detail = keys.indices.map {
                    (
                        key: keys[$0], a: variants[i].values[keys[$0]]!, b: variants[j].values[keys[$0]]!,
                        deltaE: distances[$0]
                    )
                }
                diagnostics.append(
                    Diagnostic(
                        file: file, path: path,
                        Say.tooAlike(variants[i].name, variants[j].name, detail, minimum: minimum),
                        severity: severity))
            }
        }
    }
}
