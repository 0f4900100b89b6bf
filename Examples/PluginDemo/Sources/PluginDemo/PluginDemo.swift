/// The demo's code does not matter: its `pipeline.json` and `Assets/` are what the texpipe plugin
/// processes (see the README in this folder).
public enum PluginDemo {
    public static let assets = "Assets"
}
