import ArgumentParser
import SampleGenerator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `cardsync generate`: writes a seeded, realistic address book and its duplicate labels.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate a seeded, realistic address book for tests, samples and benchmarks.",
        discussion: """
            The same options always give the same bytes, on every platform. Cards are vCard 3.0 \
            or 4.0 with CRLF line ends, folded at 75 octets, with names and notes in many \
            scripts, escapes, photos, X- properties and Apple-style groups (--rfc-only leaves out \
            what the RFC does not register).

            --duplicate-rate repeats earlier cards with a new UID: half as exact copies, half \
            reformatted (other folding, case, order or version spelling). \
            --near-duplicate-rate adds the same people with small changes (a typo, another \
            phone format, one e-mail more or less), plus a quarter as many look-alikes: other \
            people with the same name.

            The labels file (JSON, sorted keys) says which card repeats or resembles which. It \
            is written beside the output: FILE.labels.json for -o FILE, DIR.labels.json for \
            --dir DIR; --labels chooses another path. With -o - only --labels writes one.

            --dir writes one file per card named <UID>.vcf, or <digest>.vcf when the UID holds \
            characters other than A-Z a-z 0-9 . _ + -.

            Examples:
              cardsync generate --count 1000 --seed 7 -o book.vcf
              cardsync generate --count 100000 --seed 1 --version 4.0 -o big.vcf
              cardsync generate --count 2000 --seed 3 --duplicate-rate 0.1 \\
                --near-duplicate-rate 0.05 --dir contacts --labels answers.json
              cardsync generate --count 5 --seed 9 --sparse -o - | head
            """
    )

    /// The values `--version` accepts.
    enum VersionChoice: String, ExpressibleByArgument, CaseIterable {
        case v3 = "3.0"
        case v4 = "4.0"
        case mixed

        var generatorVersion: GeneratorOptions.Version {
            switch self {
            case .v3: .v3
            case .v4: .v4
            case .mixed: .mixed
            }
        }
    }

    @Option(help: "The number of cards, duplicates included.")
    var count: Int

    @Option(help: "The seed; the same seed and options give the same bytes.")
    var seed: UInt64

    @Option(help: "The vCard version of the cards.")
    var version: VersionChoice = .mixed

    @Option(help: "The share of new contacts with a photo (0 to 1).")
    var photoRate: Double = 0.1

    @Option(help: "The share of cards that repeat an earlier card with the same meaning (0 to 1).")
    var duplicateRate: Double = 0

    @Option(help: "The share of cards that are an earlier contact with small changes (0 to 1).")
    var nearDuplicateRate: Double = 0

    @Flag(help: "Write minimal cards: N, FN, UID and at most one TEL or EMAIL.")
    var sparse = false

    @Flag(help: "Use only RFC 6350 (4.0) or RFC 2426 (3.0) vocabulary: no X- properties, no groups.")
    var rfcOnly = false

    @Option(name: .shortAndLong, help: "The output file ('-' for standard output).")
    var output: String?

    @Option(help: "A directory to write one <UID>.vcf file per card into (created if missing).")
    var dir: String?

    @Option(help: "Where to write the labels JSON (default: beside the output).")
    var labels: String?

    @Option(name: .customLong("diff-pair"), help: ArgumentHelp(
        "Write two versions of a book with labelled differences: PREFIX.old.vcf, PREFIX.new.vcf, PREFIX.labels.json.",
        valueName: "PREFIX"))
    var diffPair: String?

    @Option(help: "With --diff-pair: the share of cards removed, edited, reformatted, given a new UID (each), and added.")
    var changeRate = 0.01

    func validate() throws {
        guard count >= 0 else {
            throw ValidationError("--count must be 0 or more, not \(count).")
        }
        for (name, rate) in [
            ("--photo-rate", photoRate), ("--duplicate-rate", duplicateRate),
            ("--near-duplicate-rate", nearDuplicateRate),
        ] where !(0...1).contains(rate) {
            throw ValidationError("\(name) must be a number from 0 to 1, not \(rate).")
        }
        guard duplicateRate + nearDuplicateRate * 1.25 <= 1 else {
            throw ValidationError(
                "--duplicate-rate plus --near-duplicate-rate (and a quarter of it again for look-alikes) "
                    + "must not exceed 1.")
        }
        if diffPair != nil {
            guard output == nil, dir == nil, labels == nil else {
                throw ValidationError("--diff-pair writes its own files; leave out -o, --dir and --labels.")
            }
            guard (0...0.25).contains(changeRate) else {
                throw ValidationError("--change-rate must be a number from 0 to 0.25, not \(changeRate).")
            }
            return
        }
        switch (output, dir) {
        case (nil, nil):
            throw ValidationError("Say where to write the cards: -o FILE ('-' for standard output) or --dir DIR.")
        case (.some, .some):
            throw ValidationError("Give either -o/--output or --dir, not both.")
        case (.some(let output), nil):
            if output == "-", labels == "-" {
                throw ValidationError("--labels - cannot share standard output with the cards (-o -).")
            }
        case (nil, .some(let dir)):
            if dir.isEmpty || dir == "-" {
                throw ValidationError("--dir needs a directory path.")
            }
        }
    }

    /// The labels path: `--labels`, or beside the output, or nil when the cards go to standard output.
    var labelsPath: String? {
        if let labels { return labels }
        if let output, output != "-" { return output + ".labels.json" }
        if let dir {
            var trimmed = Substring(dir)
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            return trimmed + ".labels.json"
        }
        return nil
    }

    func run() async throws {
        if let diffPair {
            try await reportingFailures { try writeDiffPair(prefix: diffPair) }
            return
        }
        try await reportingFailures {
            let options = GeneratorOptions(
                count: count, seed: seed, version: version.generatorVersion, photoRate: photoRate,
                duplicateRate: duplicateRate, nearDuplicateRate: nearDuplicateRate, sparse: sparse, rfcOnly: rfcOnly)
            let generator = AddressBookGenerator(options: options)
            let labels: GeneratorLabels
            let destination: String
            if let dir {
                labels = try Self.writeDirectory(dir, generator: generator)
                destination = dir
            } else {
                let sink = try ByteSink(path: output)
                labels = try generator.write(chunkSize: 1 << 20) { chunk throws(CommandFailure) in
                    try sink.write(chunk)
                }
                try sink.commit()
                destination = output == "-" ? "standard output" : output ?? "standard output"
            }
            if let labelsPath {
                try Self.writeLabels(labels, to: labelsPath)
            }
            StandardError.print(Self.summary(labels, destination: destination, labelsPath: labelsPath))
        }
    }

    /// Writes one file per card into `path`, creating the directory if needed.
    private static func writeDirectory(_ path: String, generator: AddressBookGenerator) throws(CommandFailure)
        -> GeneratorLabels
    {
        try makeDirectory(path)
        var labels: [DuplicateLabel] = []
        var names = Set<String>()
        for card in generator.makeCards() {
            var name = card.fileName
            var suffix = 2
            while names.contains(name) {
                name = String(card.fileName.dropLast(4)) + "-" + String(suffix) + ".vcf"
                suffix += 1
            }
            names.insert(name)
            try writeFile(path + "/" + name, bytes: Array(card.text.utf8))
            if let label = card.label { labels.append(label) }
        }
        return GeneratorLabels(options: generator.options, cards: labels)
    }

    /// `--diff-pair PREFIX`: the old book, the new book, and what changed.
    private func writeDiffPair(prefix: String) throws(CommandFailure) {
        let generator = DiffPairGenerator(count: count, seed: seed, version: version.generatorVersion, photoRate: photoRate,
                                          changeRate: changeRate)
        var old: [UInt8] = []
        var new: [UInt8] = []
        let labels = generator.write(old: &old, new: &new)
        let json: [UInt8]
        do {
            json = Array(try labels.jsonData()) + [0x0A]
        } catch {
            throw CommandFailure.io("\(prefix).labels.json: cannot encode the labels: \(error)")
        }
        for (suffix, bytes) in [(".old.vcf", old), (".new.vcf", new), (".labels.json", json)] {
            let sink = try ByteSink(path: prefix + suffix)
            try sink.write(bytes)
            try sink.commit()
        }
        StandardError.print("cardsync: wrote \(labels.oldCount) cards to \(prefix).old.vcf and \(labels.newCount) to \(prefix).new.vcf: "
            + "\(labels.added.count) added, \(labels.removed.count) removed, \(labels.edited.count) edited, "
            + "\(labels.reformatted.count) reformatted only, \(labels.uidChanged.count) with a new UID; labels in \(prefix).labels.json")
    }

    private static func writeLabels(_ labels: GeneratorLabels, to path: String) throws(CommandFailure) {
        let json: [UInt8]
        do {
            json = Array(try labels.jsonData()) + [0x0A]
        } catch {
            throw CommandFailure.io("\(path): cannot encode the labels: \(error)")
        }
        let sink = try ByteSink(path: path)
        try sink.write(json)
        try sink.commit()
    }

    private static func makeDirectory(_ path: String) throws(CommandFailure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw CommandFailure.io("\(path): cannot create the directory: \(String(cString: strerror(errno)))")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure.io("\(path): not a directory")
        }
    }

    private static func writeFile(_ path: String, bytes: [UInt8]) throws(CommandFailure) {
        guard let file = fopen(path, "wb") else {
            throw CommandFailure.io("\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else {
            throw CommandFailure.io("\(path): write failed: \(String(cString: strerror(errno)))")
        }
    }

    private static func summary(_ labels: GeneratorLabels, destination: String, labelsPath: String?) -> String {
        var text = "cardsync: wrote \(labels.count) cards to \(destination): \(labels.distinct) distinct"
        if labels.exact + labels.reformatted > 0 {
            text += ", \(labels.exact) exact and \(labels.reformatted) reformatted duplicates"
        }
        if labels.near + labels.lookalike > 0 {
            text += ", \(labels.near) near duplicate\(labels.near == 1 ? "" : "s"), \(labels.lookalike) look-alike\(labels.lookalike == 1 ? "" : "s")"
        }
        if let labelsPath {
            text += "; labels in \(labelsPath == "-" ? "standard output" : labelsPath)"
        }
        return text
    }
}
