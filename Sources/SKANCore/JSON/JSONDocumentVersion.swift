/// The versions of the JSON documents SKANKit writes for programs to read (`docs/json-documents.md`): each object
/// carries its document's version first, `schema_version` in documents whose members are snake_case (report and
/// export rows) and `schema-version` in those whose members are kebab-case (`GET /stats`), so that a reader can
/// refuse a shape it does not know instead of misreading it.
///
/// A version rises when a member is removed or renamed, or changes its type or meaning; a new member is added
/// without one (readers ignore members they do not know).
public enum JSONDocumentVersion {
    /// Rows of `skan report --format json` (with `--integrity`, `--modeled`, `--schema` or not) and of
    /// `skan campaigns list --format json`.
    public static let report = 1
    /// Rows of `skan export --format jsonl` (postbacks, `--rejected`, `--conflicts`): the table's columns.
    public static let export = 1
    /// `GET /stats` of the collector's admin listener.
    public static let stats = 1

    /// The member's name in snake_case documents.
    public static let snakeCaseKey = "schema_version"
    /// The member's name in kebab-case documents.
    public static let kebabCaseKey = "schema-version"
}
