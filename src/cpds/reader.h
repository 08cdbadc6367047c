// Reads .pds, .init and .spec files. Every malformed input raises InputError naming file, line
// and column; tolerated oddities (a symbol outside a block's declared range) become warnings.
#pragma once

#include <cstddef>
#include <optional>
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

// A model as read from its files: the .pds, the initial state (`init`, else the model's name with
// .init) and the target (the file `spec`, else the text `target`; neither: none).
struct ModelFiles {
  Cpds cpds;
  InitialState init;
  std::optional<TargetPattern> target;
  std::string target_text;  // the file or the text it was read from
  std::string digest;       // of the model, initial state and target texts (certificates)
  Warnings warnings;
};
// Throws InputError (file, line and column) for what cannot be read.
ModelFiles ReadModelFiles(const std::string& path, const std::string& init, const std::string& spec,
                          const std::string& target);

}  // namespace druba::cpds
