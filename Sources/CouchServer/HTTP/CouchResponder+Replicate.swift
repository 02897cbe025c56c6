import CouchClient
import Foundation
import HTTPServerSupport
import JSONText

extension CouchResponder {
    /// Where one side of a replication is.
    private enum ReplicationLocation: Sendable {
        /// A database of this server, by name.
        case local(String)
        /// A database elsewhere: the server's URL (credentials included), the database name,
        /// and the URL to name in errors (without credentials).
        case remote(server: URL, name: String, shown: String)

        init(_ value: JSONValue) throws(CouchError) {
            var text = value.stringValue
            if text == nil { text = value["url"]?.stringValue }
            guard let text, !text.isEmpty else {
                throw CouchError(.badRequest, reason: "source and target must be database names or URLs")
            }
            guard text.contains("://") else {
                self = .local(text)
                return
            }
            guard var components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
                throw CouchError(.badRequest, reason: "could not parse the replication URL \(text)")
            }
            if let basic = value["auth"]?["basic"], let user = basic["username"]?.stringValue {
                components.user = user
                components.password = basic["password"]?.stringValue
            }
            let segments = components.percentEncodedPath.split(separator: "/")
            guard let last = segments.last, let name = PercentEncoding.decode(last) else {
                throw CouchError(.badRequest, reason: "the replication URL \(text) names no database")
            }
            components.percentEncodedPath = "/" + segments.dropLast().joined(separator: "/")
            var shown = components
            shown.user = nil
            shown.password = nil
            shown.percentEncodedPath = "/" + segments.joined(separator: "/") + "/"
            guard let server = components.url else {
                throw CouchError(.badRequest, reason: "could not parse the replication URL \(text)")
            }
            self = .remote(server: server, name: name, shown: shown.string ?? text)
        }

        var shown: String {
            switch self {
            case .local(let name): name
            case .remote(_, _, let shown): shown
            }
        }
    }

    /// `POST /_replicate` `{source, target, create_target}`: a one-shot replication, answered when
    /// it is done with CouchDB's report. Each side is a database name of this server or a URL,
    /// reached through ``CouchClient``. Continuous replications are refused.
    func replicate(_ request: CouchRequest) async throws(CouchError) -> CouchResponse {
        try allow(request, [.post])
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        if body["continuous"]?.boolValue == true || body["cancel"]?.boolValue == true {
            throw CouchError(.badRequest, reason: "cardsync serve runs one-shot replications only")
        }
        guard let sourceValue = body["source"], let targetValue = body["target"] else {
            throw CouchError(.badRequest, reason: "Replication document must have source and target")
        }
        let source = try ReplicationLocation(sourceValue)
        let target = try ReplicationLocation(targetValue)
        let createTarget = body["create_target"]?.boolValue ?? false
        do {
            let report = try await withEndpoint(source, isTarget: false, create: false) { sourceEndpoint in
                try await withEndpoint(target, isTarget: true, create: createTarget) { targetEndpoint in
                    try await Replicator(source: sourceEndpoint, target: targetEndpoint).run()
                }
            }
            return CouchResponse(report.json)
        } catch let error as CouchError {
            throw error
        } catch let error as CouchClientError {
            throw CouchError(CouchError.Code(name: "replication_failed", status: 500), reason: "\(error)")
        } catch {
            throw CouchError(CouchError.Code(name: "replication_failed", status: 500), reason: "\(error)")
        }
    }

    /// Opens one side (creating a target when asked) and runs `body` with it.
    private func withEndpoint<Result: Sendable>(
        _ location: ReplicationLocation, isTarget: Bool, create: Bool,
        _ body: (any ReplicationEndpoint) async throws -> Result
    ) async throws -> Result {
        let notFound = CouchError(CouchError.Code(name: "db_not_found", status: isTarget ? 404 : 500),
                                  reason: "could not open \(location.shown)")
        switch location {
        case .local(let name):
            let database: Database
            if create, (try? await catalog.database(named: name)) == nil {
                database = try await catalog.createDatabase(named: name)
            } else {
                do {
                    database = try await catalog.database(named: name)
                } catch {
                    throw notFound
                }
            }
            return try await body(LocalReplicationEndpoint(database: database, maximumDocumentSize: configuration.maximumDocumentSize))
        case .remote(let server, let name, _):
            let settings = CouchClient.Configuration(requestTimeout: .seconds(300), retry: RetryPolicy(maximumAttempts: 3))
            return try await withCouchClient(url: server, configuration: settings, logger: self.server.logger) { client in
                let database = client.database(name)
                if create {
                    try await database.create(ignoringExisting: true)
                } else {
                    do {
                        _ = try await database.info()
                    } catch let error as CouchClientError where error.status == 404 {
                        throw notFound
                    }
                }
                return try await body(RemoteReplicationEndpoint(database: database))
            }
        }
    }
}
