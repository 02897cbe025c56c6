import ArgumentParser

/// The `cardsync(1)` man page, made from the same help text `--help` prints, so the two never
/// disagree: the overview, then one section per command.
enum ManualPage {
    static func render(version: String) -> String {
        var page = """
            .TH CARDSYNC 1 "" "cardsync \(version)" "User Commands"
            .SH NAME
            cardsync \\- \(escape(CardSyncCommand.configuration.abstract))
            .SH SYNOPSIS
            .B cardsync
            .I command
            .RI [ options ]
            .SH DESCRIPTION

            """
        page += preformatted(CardSyncCommand.helpMessage(columns: 78))
        page += ".SH COMMANDS\n"
        for command in CardSyncCommand.configuration.subcommands {
            guard let name = command.configuration.commandName else { continue }
            page += ".SS \(escape(name))\n"
            page += preformatted(CardSyncCommand.helpMessage(for: command, columns: 78))
        }
        page += """
            .SH FILES
            .TP
            .I DIR/.cardsync/
            an address book's journal of every version, its index and its sync state
            .TP
            .I ~/.local/share/cardsync/server
            the embedded endpoint's data ($CARDSYNC_SERVER_DATA, else $XDG_DATA_HOME/cardsync/server)
            .SH ENVIRONMENT
            .TP
            .B CARDSYNC_PASSWORD
            the remote's password, when the URL and \\-\\-password\\-file give none
            .TP
            .B CARDSYNC_SCHEMAS
            the folder of the schemas `validate` checks jCard and xCard against

            """
        return page
    }

    /// Lines kept as they are (`.nf`), each escaped for roff.
    private static func preformatted(_ text: String) -> String {
        ".nf\n" + text.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "\n") + "\n.fi\n"
    }

    /// Backslashes doubled; a line starting with `.` or `'` (a roff request) protected.
    static func escape(_ line: String) -> String {
        var text = line.replacingOccurrences(of: "\\", with: "\\e")
        text = text.replacingOccurrences(of: "-", with: "\\-")
        if text.hasPrefix(".") || text.hasPrefix("'") { text = "\\&" + text }
        return text
    }
}
