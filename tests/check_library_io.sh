#!/bin/sh
# No library under src/ reads the environment or writes to a standard stream
# (docs/architecture.md): the front end hands them sinks and settings. Names each file:line that
# does (comments may name them).
#   check_library_io.sh SRC_DIR
src=$1
found=$(find "$src" -name '*.cc' -o -name '*.h' | sort | xargs awk '{
  code = $0
  sub(/\/\/.*/, "", code)
  if (code ~ /getenv|std::cout|std::cerr|std::clog|(^|[^a-z_])(stdout|stderr)([^a-z_]|$)|(^|[^a-z_:])printf\(|std::printf|puts\(/)
    print FILENAME ":" FNR ": " $0
}')
if [ -n "$found" ]; then
  echo "a library reads the environment or writes to a standard stream:"
  echo "$found"
  exit 1
fi
echo "$(find "$src" -name '*.cc' -o -name '*.h' | wc -l) files under src/: none reads the environment or writes to a stream"
