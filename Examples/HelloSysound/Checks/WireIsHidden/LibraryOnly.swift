// Must NOT compile: `import Sysound` brings no wire type along.
import Sysound

func repliesByHand() -> Any {
    Reply.ok()
}
