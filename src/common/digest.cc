#include "common/digest.h"

#include <cstdint>

#include <fmt/format.h>
#include <xxhash.h>

namespace druba {

std::string ContentDigest(const std::vector<std::string_view>& parts) {
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  for (const std::string_view part : parts) {
    const std::uint64_t size = part.size();
    XXH64_update(state, &size, sizeof size);
    XXH64_update(state, part.data(), part.size());
  }
  const std::uint64_t digest = XXH64_digest(state);
  XXH64_freeState(state);
  return fmt::format("xxh64:{:016x}", digest);
}

}  // namespace druba
