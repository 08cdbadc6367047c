// A digest of a model's input files, so that a certificate names exactly the model it was written
// for: XXH64 of the parts, each preceded by its length (so no two lists of parts collide by
// concatenation). Not cryptographic: it guards against a model edited after certifying, not
// against a forger.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace druba {

// "xxh64:" and 16 hex digits.
std::string ContentDigest(const std::vector<std::string_view>& parts);

}  // namespace druba
