/// Refuses a command line whose outputs would replace what it reads: a tool run by hand
/// (`regionsearch-graph --input p.rsa --output p.rsa`, `regionsearch diff OLD NEW --json OLD`)
/// would otherwise write over its input and exit 0. The manifest runner has its own, wider check
/// (`OutputSafety`); this one serves the executables' own command lines.
public enum OutputCollision {
    /// Throws (exit 2) when one of `outputs` names the same existing file as one of `inputs` —
    /// compared by device and inode, so a link or another spelling of the path is caught — or
    /// the same file as an earlier output (by identity when both exist, else by the path as
    /// given). Devices and pipes (`/dev/null`, `/dev/stdout`) may take several outputs. Each
    /// entry is a label for the message (`--output`, `input 1`) and its path.
    public static func check(
        outputs: [(label: String, path: String)], inputs: [(label: String, path: String)]
    ) throws(UsageError) {
        // Devices and pipes are no files a write replaces (`--must-not /dev/null --json /dev/null`).
        let read = inputs.compactMap { input in
            FileIdentity(path: input.path).flatMap { $0.isRegularFile ? (input, $0) : nil }
        }
        for (k, output) in outputs.enumerated() {
            let id = FileIdentity(path: output.path)
            if let id, let (input, _) = read.first(where: { $0.1 == id }) {
                throw UsageError(
                    "\(output.label) \(output.path) is \(input.label) \(input.path), which is read (the same file, "
                        + "through a link or another spelling of its path): writing it would replace the input; "
                        + "choose another output path")
            }
            for earlier in outputs[..<k] {
                let same: Bool
                if let id, let other = FileIdentity(path: earlier.path) {
                    same = id == other && id.isRegularFile
                } else {
                    same = id == nil && earlier.path == output.path
                }
                if same {
                    throw UsageError(
                        "\(output.label) and \(earlier.label) both name \(output.path): one would replace the other; "
                            + "give each its own path")
                }
            }
        }
    }
}
