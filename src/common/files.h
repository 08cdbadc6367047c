// Reading input files, and writing output files so that a stopped run never leaves half a file
// behind.
#pragma once

#include <cstddef>
#include <string>

namespace druba {

// The most a model, init, spec or trace file may hold.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

// The whole file; InputError for a directory, a file it cannot read, or one larger than
// kMaxInputBytes (an endless one such as a device included).
std::string ReadFile(const std::string& path);

// Writes `text` to `path`; InputError (naming `path`) if it cannot. A regular file (or a new one)
// is replaced atomically: written to a unique temporary file in the same directory (mkstemp) and
// renamed over it, keeping its mode. A symbolic link is followed and its target written. A device,
// FIFO or other special file is written in place and never replaced (so /dev/null stays a
// device); a directory is an error. A path naming what standard output or standard error is open
// on (/dev/stdout, or the file or pipe it goes to) is written to that stream where it stands,
// so that a report printed after it follows it.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace druba
