import Glibc

// `sysound`, the command users, scripts and keybindings run. Its common case,
// `sysound play NAME` with a daemon up, is one socket round trip answered
// here; without a daemon it becomes the embedded engine (`sysound-play`);
// `serve` becomes the engine's daemon (ServeHandOver); every other
// command is the full CLI in `sysound-cli`, which this process becomes. This
// executable links no Foundation, no argument parser and no logging: their
// start-up costs more than the request (docs/benchmarks.md, figure 1). For the same reason it reads argv and the environment as C
// strings: each generic type the Swift runtime instantiates on first use
// (an [String] of arguments, a dictionary of the environment) costs a lookup
// through the binary's conformance tables.

if ServeHandOver.matches(CommandLine.unsafeArgv, count: Int(CommandLine.argc)) { ServeHandOver.become() }
switch FastPath.play(CommandLine.unsafeArgv, count: Int(CommandLine.argc)) {
case .answered(let status)?: exit(status)
case .noDaemon?: EmbeddedPlay.become()
case nil: FullCLI.become()
}
