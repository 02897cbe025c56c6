import ArgumentParser

/// How a command prints its results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// For people.
    case text
    /// One JSON document, described by `Schemas/cli-output.schema.json`.
    case json
}
