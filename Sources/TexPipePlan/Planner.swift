internal import Foundation
internal import TexPipeFormats
public import TexPipeManifest
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// Manifest → jobs: globs, variants, templates, alpha-state chain, output containment and
/// collisions. Everything it finds is a manifest error (exit 2) reported at once, before
/// anything runs — except problems of one input's pixels, which fail only that job.
public enum Planner {
    public static func plan(_ manifest: Manifest, _ options: PlanOptions = PlanOptions()) throws -> Plan {
        var planner = PlanBuilder(manifest: manifest)
        planner.shapes = options.shapes
        planner.inputsPerSlice = options.inputsPerSlice
        planner.diagnostics = manifest.diagnostics
        for name in options.pipelines where !manifest.pipelines.contains(where: { $0.name == name }) {
            planner.error(nil, Say.unknownPipeline(name, valid: manifest.pipelines.map(\.name)))
        }
        var selected = manifest.pipelines.filter { options.pipelines.isEmpty || options.pipelines.contains($0.name) }
        if !options.variants.isEmpty {
            // A platform per CI machine: only the jobs of these variants; a pipeline without them
            // (or without variants at all) has nothing to do here.
            let names = selected.flatMap { $0.variants?.map(\.name) ?? [] }
            for name in options.variants where !names.contains(name) {
                planner.error(nil, Say.unknownVariant(name, valid: Array(Set(names)).sorted()))
            }
            selected = selected.filter { p in p.variants?.contains { options.variants.contains($0.name) } ?? false }
            planner.onlyVariants = options.variants
        }
        for p in selected { planner.add(p) }
        planner.checkOutputs()
        let all = planner.unique
        guard !all.contains(where: { $0.severity == .error }) else { throw ManifestError(all) }
        return Plan(manifest: manifest, jobs: planner.jobs, warnings: all.sorted())
    }

    /// Shows a path relative to the current folder when it lies below it.
    public static func display(_ absolute: String) -> String { PathText.display(absolute) }
}

struct PlanBuilder {
    let manifest: Manifest
    var diagnostics: [Diagnostic] = []
    var jobs: [Job] = []
    // Paths are keyed by their bytes (`PathKey`): two files whose names are equal as Strings must
    // not share a real folder, a header or a place among the inputs.
    var inputsRealPaths: Set<PathKey> = []
    var realDirectories: [PathKey: String] = [:]
    /// Headers of the files the plan reads (inputs and stage resources), each read once.
    var headers: [PathKey: Result<ImageShape, HeaderProblem>] = [:]
    var shapes: (any ShapeMemory)?
    /// `--variant`: only these variants' jobs (all when empty).
    var onlyVariants: [String] = []
    /// Fonts found, by spec and folder: fontconfig's match is the slow part.
    var fonts: [String: Result<FontFace, CodecError>] = [:]

    /// A pipeline's decoded stages and settings, when no parameter holds a placeholder (decoding
    /// them per job was a quarter of planning 20,000 sprites).
    var decoded: [Int: DecodedPipeline] = [:]
    /// glTF texture jobs by their first output: a texture two models share is one job.
    var gltfTextures: [PathKey: Int] = [:]
    /// Each pipeline's output template, split once.
    var outputTemplates: [Int: Template.Compiled] = [:]

    struct DecodedPipeline {
        var stages: [any Stage]
        /// The resolved parameters in canonical form, one per line (part of each job's key).
        var canonical: String
        var files: ImageFileSettings
        var texture: TextureSettings
    }

    init(manifest: Manifest) { self.manifest = manifest }

    mutating func error(_ path: JSONPath?, _ message: String) {
        diagnostics.append(Diagnostic(file: manifest.file, path: path, message))
    }

    var unique: [Diagnostic] {
        var seen = Set<Diagnostic>()
        return diagnostics.filter { seen.insert($0).inserted }
    }

    /// A pipeline's inputs — its globs' matches, less its excludes — planned by its kind.
    mutating func add(_ p: PipelineSpec) {
        let base = manifest.directory
        var matches: [Glob.Match] = []
        var seen = Set<PathKey>()  // by bytes, as the glob keeps them
        // Whether every input glob matched something (before `exclude`), from the one walk.
        var everyInputMatched = true
        for (i, pattern) in p.inputs.enumerated() {
            let glob = Glob(pattern)
            if glob.tooManyAlternatives {
                error(p.path.key("inputs").index(i), PlanMessage.tooManyAlternatives)
                everyInputMatched = false
                continue
            }
            let found = glob.matches(in: base)
            if found.isEmpty {
                error(p.path.key("inputs").index(i), Say.emptyGlob(pattern))
                everyInputMatched = false
            }
            for m in found where seen.insert(PathKey(m.relativePath)).inserted { matches.append(m) }
        }
        let excludes = p.exclude.map(Glob.init)
        for (i, glob) in excludes.enumerated() where glob.tooManyAlternatives {
            error(p.path.key("exclude").index(i), PlanMessage.tooManyAlternatives)
        }
        matches.removeAll { m in excludes.contains { $0.matches(path: m.relativePath) } }
        if matches.isEmpty && !p.exclude.isEmpty && everyInputMatched {
            error(p.path.key("exclude"), PlanMessage.excludesEverything)
        }
        let only = onlyVariants
        let variants: [Variant?] = (p.variants.map { $0.map { Optional($0) } } ?? [nil]).filter { v in
            only.isEmpty || v.map { only.contains($0.name) } ?? false
        }
        switch p.kind {
        case .images: addImages(p, matches, variants)
        case .atlas(let spec): for v in variants { addAtlas(p, spec, matches, variant: v) }
        case .array(let spec): for v in variants { addLayers(p, spec, matches, volume: false, variant: v) }
        case .volume(let spec): for v in variants { addLayers(p, spec, matches, volume: true, variant: v) }
        case .gltf(let spec): for v in variants { addGLTF(p, spec, matches, variant: v) }
        }
    }

    static let cores = ProcessInfo.processInfo.activeProcessorCount
    /// Below this many inputs a slice is not worth a thread.
    var inputsPerSlice = 2000
}
