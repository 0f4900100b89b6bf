/// texpipe's version: part of every job's identity (a new version reruns everything).
public enum TexPipeVersion {
    public static let string = "0.1.0"
}
