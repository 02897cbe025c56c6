// The commands with `--format text|json`: under `json` their failures are JSON too.
extension CheckCommand: FormattedCommand {}
extension CompactCommand: FormattedCommand {}
extension DedupeCommand: FormattedCommand {}
extension DiffCommand: FormattedCommand {}
extension DuplicatesCommand: FormattedCommand {}
extension ImportCommand: FormattedCommand {}
extension InitCommand: FormattedCommand {}
extension ListCommand: FormattedCommand {}
extension LogCommand: FormattedCommand {}
extension MergeCommand: FormattedCommand {}
extension RemoteCommand: FormattedCommand {}
extension RestoreCommand: FormattedCommand {}
extension ScanCommand: FormattedCommand {}
extension ShowCommand: FormattedCommand {}
extension StatusCommand: FormattedCommand {}
extension SyncCommand: FormattedCommand {}
extension ValidateCommand: FormattedCommand {}
