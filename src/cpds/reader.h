// Reads .pds, .init and .spec files. Every malformed input raises InputError naming file, line
// and column; tolerated oddities (a symbol outside a block's declared range) become warnings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "cpds/cpds.h"

namespace druba::cpds {

// `warnings` may be null: the warnings are then dropped.
Cpds ParsePds(std::string_view text, const std::string& file, Warnings* warnings);
InitialState ParseInit(std::string_view text, const std::string& file, const Cpds& cpds);
// A target in `g|t0,t1,...` syntax: `-` an empty stack, `*` any stack (or any shared state),
// otherwise the top symbols bottom to top joined by `.`.
TargetPattern ParseTarget(std::string_view text, const std::string& file, const Cpds& cpds);

}  // namespace druba::cpds
