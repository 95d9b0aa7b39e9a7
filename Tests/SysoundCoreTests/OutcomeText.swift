import SysoundCore

/// A decision's outcomes as the policy tables write them, for both table tests.
func describe(_ o: SoundOutcome) -> String {
    switch o {
    case .play: "play"
    case .deferred: "defer"
    case .skip(let r): r.rawValue
    }
}

func describe(_ o: HapticOutcome) -> String {
    switch o {
    case .none: "none"
    case .vibrate(let p): p
    case .skip(let r): r.rawValue
    }
}
