# One C file against Node-API only (node_api.h): ABI-stable, so one build serves every Node release (20, 22, 24).
{
  "targets": [
    {
      "target_name": "non_dumpable",
      "sources": ["prctl.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Werror"]
    }
  ]
}
