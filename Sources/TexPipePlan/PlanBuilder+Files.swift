internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeParameters
internal import TexPipePixels
internal import TexPipeStages

/// The planner's side of the file system: rendered outputs checked against the root, headers read
/// once, real paths resolved once, and the outputs that collide or escape.
extension PlanBuilder {
    /// Checks a rendered template: relative, no `..`, a known extension, under the root.
    mutating func resolveOutput(_ rendered: String, at path: JSONPath, context: String) -> PlannedOutput? {
        if rendered.hasPrefix("/") {
            error(path, PlanMessage.absoluteOutput(rendered, root: manifest.output) + context)
            return nil
        }
        if !Self.isPlain(rendered) && rendered.split(separator: "/").contains("..") {
            error(path, PlanMessage.outsideRoot(rendered, root: manifest.output) + context)
            return nil
        }
        guard let out = Self.output(rendered, root: manifest.outputRoot) else {
            error(path, PlanMessage.unknownExtension(rendered) + context)
            return nil
        }
        return out
    }

    /// A rendered template as an output under `root`; nil when absolute, holding `..` or ending
    /// in no known extension.
    static func output(_ rendered: String, root: String) -> PlannedOutput? {
        guard let relative = underRoot(rendered), let format = ImageFormat(path: relative), format.isWritable
        else { return nil }
        return PlannedOutput(path: root + "/" + relative, relative: relative, format: format)
    }

    /// A rendered template as a path relative to the output root, `.` parts and empty ones
    /// dropped; nil when absolute or holding `..`.
    static func underRoot(_ rendered: String) -> String? {
        guard !rendered.hasPrefix("/") else { return nil }
        if isPlain(rendered) { return rendered }
        let parts = rendered.split(separator: "/").filter { $0 != "." }
        guard !parts.contains(".."), !parts.isEmpty else { return nil }
        return parts.joined(separator: "/")
    }

    /// Whether a relative path has no empty, `.` or `..` component, so that splitting it at `/`
    /// and joining the parts gives it back unchanged (one pass over the bytes; most rendered
    /// outputs are such).
    static func isPlain(_ path: String) -> Bool {
        var (length, dots) = (0, 0)
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if length == 0 || (length == dots && dots <= 2) { return false }
                (length, dots) = (0, 0)
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return length > 0 && !(length == dots && dots <= 2)
    }

    /// Symlinks escaping the root, outputs that are inputs, two jobs writing one path.
    mutating func checkOutputs() {
        let rootReal = realPath(manifest.outputRoot)
        let templatePath = Dictionary(
            manifest.pipelines.map { ($0.name, $0.path.key("output")) }, uniquingKeysWith: { a, _ in a })
        // Job indices, not jobs: copying a Job into the table was a tenth of checking 20,000 outputs.
        var writer: [PathKey: Int] = [:]
        writer.reserveCapacity(jobs.count)
        // What checking an output needs of its folder, found once per folder: its real path,
        // whether that escapes the root, and which of its entries are symlinks (one readdir per
        // folder instead of an lstat per output). A job's outputs, and consecutive jobs', mostly
        // share a folder: the last one is kept at hand.
        struct FolderFacts {
            var key: PathKey
            var real: String
            var escapes: Bool
            var symlinks: Set<PathKey>
        }
        var folders: [PathKey: FolderFacts] = [:]
        var last: FolderFacts?
        // By index: a `for job in jobs` copied every Job (a retain per field).
        for k in jobs.indices {
            for out in jobs[k].outputs {
                let dir = PathText.parent(out.path)
                let key = PathKey(dir)
                let folder: FolderFacts
                if let last, last.key == key {
                    folder = last
                } else if let known = folders[key] {
                    folder = known
                } else {
                    let real = realDirectory(dir)
                    folder = FolderFacts(
                        key: key, real: real, escapes: !(real == rootReal || real.hasPrefix(rootReal + "/")),
                        symlinks: Set(Folder.entries(dir).filter { $0.kind == .symlink }.map { PathKey($0.name) }))
                    folders[key] = folder
                }
                last = folder
                let at = templatePath[jobs[k].pipeline]
                if folder.escapes && !out.intermediate {
                    error(
                        at, PlanMessage.symlinkEscape(Planner.display(out.path), to: folder.real, root: manifest.output)
                    )
                    continue
                }
                // Only an output that is itself a symlink can resolve elsewhere.
                let name = PathText.lastComponent(out.path)
                let realKey = PathKey(folder.real + "/" + name)
                if inputsRealPaths.contains(realKey)
                    || (folder.symlinks.contains(PathKey(name))
                        && inputsRealPaths.contains(PathKey(realPath(out.path))))
                {
                    error(at, PlanMessage.outputIsInput(Planner.display(out.path)))
                }
                if let other = writer[realKey] {
                    error(
                        at, PlanMessage.twoWriters(Planner.display(out.path), describe(jobs[other]), describe(jobs[k])))
                } else {
                    writer[realKey] = jobs[k].index
                }
            }
        }
    }

    func describe(_ job: Job) -> String {
        PlanMessage.job(pipeline: job.pipeline, input: job.input.display, variant: job.variant)
    }

    /// A folder's real path, resolved once per plan (realpath is a readlink per path component).
    mutating func realDirectory(_ dir: String) -> String {
        if let known = realDirectories[PathKey(dir)] { return known }
        let real = realPath(dir)
        realDirectories[PathKey(dir)] = real
        return real
    }

    /// A file's real path: its folder's, plus its name — or, when the file itself is a symlink,
    /// where it points. One lstat per file.
    /// With `known`, a regular file whose shape it remembers gets that shape (the lstat is the
    /// stat the memory compares).
    mutating func realFile(_ path: String, known: (any ShapeMemory)? = nil) -> String {
        var st = stat()
        let found = lstat(path, &st) == 0
        if found, (st.st_mode & S_IFMT) == S_IFLNK { return realPath(path) }
        if found, let known, (st.st_mode & S_IFMT) == S_IFREG, headers[PathKey(path)] == nil,
            let shape = known.shape(of: path, stamp: FileStamp(st))
        {
            headers[PathKey(path)] = .success(shape)
        }
        let dir = PathText.parent(path)
        return realDirectory(dir) + "/" + PathText.lastComponent(path)
    }

    /// realpath of the deepest existing ancestor, with the rest appended.
    func realPath(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while !existing.isEmpty, existing != "/" {
            if let r = realpath(existing, nil) {
                defer { free(r) }
                let base = String(cString: r)
                return ([base] + rest.reversed()).joined(separator: "/")
            }
            rest.append(PathText.lastComponent(existing))
            existing = PathText.parent(existing)
        }
        return path
    }

    /// A stage resource, checked: an image's header read (once per plan), a font found (once per
    /// plan). The file it names goes into the job's reads.
    mutating func resolve(_ resource: Resource) -> Result<ResolvedFile, ResourceProblem> {
        switch resource {
        case .image(let path, let label, _, _):
            switch header(path) {
            case .success: return .success(ResolvedFile(path: path, font: nil))
            case .failure(let problem): return .failure(ResourceProblem(label: label, path: path, problem: problem))
            }
        case .font(let spec, let base, let label):
            let key = spec + "\u{0}" + base
            if fonts[key] == nil { fonts[key] = FontFinder.resolve(spec, baseDirectory: base) }
            switch fonts[key]! {
            case .success(let face): return .success(ResolvedFile(path: face.path, font: face))
            case .failure(let e): return .failure(ResourceProblem(label: label, path: spec, problem: .font(e.message)))
            }
        }
    }

    /// An image resource that must match the image's size there: a mismatch fails this job.
    mutating func checkSizes(_ resources: [Resource], against sig: Signature) throws {
        guard let w = sig.width, let h = sig.height else { return }
        for case .image(let path, let label, true, let hint) in resources {
            guard case .success(let head) = header(path), head.width != w || head.height != h else { continue }
            throw PlanMessage.sizeMismatch(
                label: label, path: Planner.display(path), size: (head.width, head.height), image: (w, h), hint: hint)
        }
    }

    mutating func header(_ path: String) -> Result<ImageShape, HeaderProblem> {
        if let known = headers[PathKey(path)] { return known }
        let time = FileStamp.now()
        let (header, stamp) = Self.readHeader(path)
        let result = header.map { ImageShape(width: $0.width, height: $0.height, depth: $0.depth) }
        headers[PathKey(path)] = result
        if case .success(let shape) = result, let stamp, let shapes {
            shapes.remember(shape, of: path, stamp: stamp, at: time)
        }
        return result
    }

    /// The header from the file's first 4 KiB, or as much more as a JPEG's needs (up to the
    /// whole file); and the file's stamp, taken after opening it and before reading. Only regular
    /// files: a FIFO is opened without blocking and refused. Plain `open`/`read`: the planner
    /// reads a header of every input a cold plan meets (20,000 for a folder of sprites).
    static func readHeader(_ path: String) -> (Result<ImageHeader, HeaderProblem>, FileStamp?) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return (.failure(.unreadable), nil) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return (.failure(.unreadable), nil) }
        let stamp = FileStamp(st)
        var bytes: [UInt8] = []
        var want = 4096
        while true {
            let start = bytes.count
            bytes += [UInt8](repeating: 0, count: want - start)
            var got = start
            while got < want {
                let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, want - got) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { return (.failure(.unreadable), nil) }
                if n == 0 { break }
                got += n
            }
            bytes.removeSubrange(got...)
            do {
                return (.success(try ImageDecoder.header(bytes, path: path)), stamp)
            } catch {
                // Read to the end and still not a header: the file is what is wrong.
                guard got == want else { return (.failure(.corrupt("\(error)")), nil) }
                want = want < 65536 ? 65536 : want * 4
            }
        }
    }
}

/// A resource the planner found: the file that goes into the job's reads, and the face of a font.
struct ResolvedFile {
    var path: String
    var font: FontFace?
}
