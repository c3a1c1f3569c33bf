import Foundation

/// Why a file cannot be read or made, in a few words a user can act on, rather than Foundation's or a database
/// library's ("The operation could not be completed", "error 14").
public enum FileCheck {
    /// What stops `path` being read as a file: `nil` when nothing does.
    public static func problem(reading path: String) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            return missingFolder(of: path).map { "the folder \($0) does not exist" } ?? "no such file"
        }
        if isFolder.boolValue { return "a folder, not a file" }
        if access(path, R_OK) != 0 { return "permission denied" }
        return nil
    }

    /// The folder that would hold `path`, when it does not exist (or is not a folder): a file cannot be made there.
    public static func missingFolder(of path: String) -> String? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue ? nil : folder
    }
}
