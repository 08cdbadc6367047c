// Reads .pds, .init and .spec files. Every malformed input raises InputError naming file, line
// and column; tolerated oddities (a symbol outside a block's declared range) become warnings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "cpds/cpds.h"

namespace druba::cpds {

Cpds ParsePds(std::string_view text, const std::string& file, Warnings* warnings);
InitialState ParseInit(std::string_view text, const std::string& file, const Cpds& cpds);
// A target in `g|t0,t1,...` syntax: `-` an empty stack, `*` any stack (or any shared state),
// otherwise the top symbols bottom to top joined by `.`.
TargetPattern ParseTarget(std::string_view text, const std::string& file, const Cpds& cpds);

// The most a model, init, spec or trace file may hold.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

// The whole file; InputError for a directory, a file it cannot read, or one larger than
// kMaxInputBytes (an endless one such as a device included).
std::string ReadFile(const std::string& path);

}  // namespace druba::cpds
