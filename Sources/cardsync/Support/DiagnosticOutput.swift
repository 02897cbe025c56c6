import VCardKit

/// A diagnostic in `--format json` output (`$defs/diagnostic` of `Schemas/cli-output.schema.json`).
struct DiagnosticOutput: Encodable {
    var file: String
    var line: Int
    var column: Int
    var severity: String
    var code: String
    var message: String

    init(_ diagnostic: Diagnostic) {
        file = diagnostic.location.source
        line = diagnostic.location.line
        column = diagnostic.location.column
        severity = diagnostic.severity.rawValue
        code = diagnostic.code.rawValue
        message = diagnostic.message
    }
}
