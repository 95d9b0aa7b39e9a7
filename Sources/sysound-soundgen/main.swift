print("sysound-soundgen: not yet built")
