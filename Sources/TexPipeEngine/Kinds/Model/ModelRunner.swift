internal import Foundation
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeModels
internal import TexPipePixels
internal import TexPipePlan

extension Runner {
    /// A model's rewrite (docs/gltf.md): the model read again, its textures from the files their
    /// jobs wrote, and the model with everything else kept written as a `.glb`, or a `.gltf` with
    /// its buffers (and the images no material uses) beside it. Its key is the model, its
    /// buffers and its textures' files, so an untouched model costs a stat per file.
    static func runModel(
        _ job: Job, _ model: ModelPlan, in plan: Plan, _ options: RunOptions, _ prepared: Prepared,
        _ inputs: JobInputs
    ) -> (result: JobResult, bytes: [[UInt8]]) {
        groupRun(job, plan, options, prepared, inputs) { result, encoded, base in
            let t = DispatchTime.now().uptimeNanoseconds
            guard let data = inputs.files[0] else {
                return GroupFailure(inputs.inputError ?? EngineMessage.unreadableInput, nil)
            }
            let folder = PathText.parent(job.input.path)
            let read = GLTFModel.files(in: folder)
            let output: GLTFRewrite.Output
            do throws(GLTFError) {
                let parsed = try GLTFModel.parse(data)
                let buffers = try parsed.buffers(read: read)
                let layout = try GLTFLayout(parsed, binary: model.binary, stem: model.stem)
                guard layout.textures.count == model.textures.count else {
                    return GroupFailure(EngineMessage.modelChanged("\(layout.textures.count) textures"), "gltf")
                }
                var files: [GLTFTextureFiles] = []
                for (k, planned) in model.textures.enumerated() {
                    let texture = layout.textures[k]
                    func file(_ path: String?) throws(GLTFError) -> GLTFImageFile? {
                        guard let path, let mime = FileKind(path: path).flatMap(GLTFRewrite.mimeType(of:)) else {
                            return nil
                        }
                        let name = texture.name + "." + PathText.pathExtension(path)
                        guard texture.inView else { return GLTFImageFile(bytes: [], mimeType: mime, name: name) }
                        switch FileReader.read(path) {
                        case .success(let bytes): return GLTFImageFile(bytes: bytes, mimeType: mime, name: name)
                        case .failure(let why): throw GLTFError(planned.display, "\(why)")
                        }
                    }
                    files.append(
                        GLTFTextureFiles(
                            basisu: try file(planned.basisu), plain: try file(planned.plain), web: try file(planned.web)
                        ))
                }
                var unused: [Int: [UInt8]] = [:]
                for (image, uri) in layout.unusedFiles { unused[image] = try read(uri).get() }
                output = try GLTFRewrite.write(
                    parsed, buffers: buffers, layout: layout, files: files, unused: unused, binary: model.binary)
            } catch {
                return GroupFailure(error.description, "gltf")
            }
            result.timings.append(("rewrite", elapsed(since: t)))
            let w = DispatchTime.now().uptimeNanoseconds
            do {
                try record(output.model, job.outputs[0], options, base: base, &result, &encoded)
                let dir = PathText.parent(job.outputs[0].relative)
                for (name, bytes) in output.beside {
                    let relative = dir.isEmpty ? name : dir + "/" + name
                    guard let o = job.outputs.first(where: { $0.relative == relative }) else {
                        return GroupFailure(EngineMessage.modelChanged(name), "gltf")
                    }
                    try record(bytes, o, options, base: base, &result, &encoded)
                }
            } catch {
                return GroupFailure(EngineMessage.output(job.outputs[0].relative, error), nil)
            }
            result.timings.append(("write", elapsed(since: w)))
            return nil
        }
    }
}
