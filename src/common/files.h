// Writing output files so that a stopped run never leaves half a file behind.
#pragma once

#include <string>

namespace druba {

// Writes `text` to `path`; InputError (naming `path`) if it cannot. A regular file (or a new one)
// is replaced atomically: written to a unique temporary file in the same directory (mkstemp) and
// renamed over it, keeping its mode. A symbolic link is followed and its target written. A device,
// FIFO or other special file is written in place and never replaced (so /dev/stdout works and
// /dev/null stays a device); a directory is an error.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace druba
