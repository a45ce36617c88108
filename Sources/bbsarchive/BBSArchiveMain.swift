import BBSArchiveCLI

/// The executable only hands over to the command line in BBSArchiveCLI.
@main
extension BBSArchiveCommand {}
