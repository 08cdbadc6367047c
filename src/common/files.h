// Writing output files so that a stopped run never leaves half a file behind.
#pragma once

#include <string>

namespace druba {

// Writes `text` to `path` through `path.tmp` and a rename; InputError if it cannot.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace druba
