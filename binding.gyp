{
  "targets": [
    {
      "target_name": "probelet_probe_engine",
      "sources": ["native/probe-engine.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-std=gnu11"],
      "conditions": [["OS!='linux'", {"type": "none"}]]
    }
  ]
}
