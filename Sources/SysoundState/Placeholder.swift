// SysoundState: see the issue that builds this layer.
import SysoundCore
