// The library product: `import TexPipe` gives the public API of every layer (docs/ARCHITECTURE.md).
@_exported public import TexPipeAtlas
@_exported public import TexPipeBlocks
@_exported public import TexPipeCache
@_exported public import TexPipeCodecs
@_exported public import TexPipeEngine
@_exported public import TexPipeFormats
@_exported public import TexPipeManifest
@_exported public import TexPipeMeasures
@_exported public import TexPipeModels
@_exported public import TexPipeParameters
@_exported public import TexPipePixels
@_exported public import TexPipePlan
@_exported public import TexPipeReport
@_exported public import TexPipeStages
@_exported public import TexPipeTextures
