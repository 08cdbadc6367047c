// States that travel between processes (the distributed search, src/distributed): a model kind
// whose state words name entries of tables of its own (CPDS stack ids, interned big integers)
// writes a state as self-contained bytes, and a process reads them back into words of its own
// tables. Equal states give equal bytes, so a hash of the bytes names the same owner everywhere.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "explore/model.h"

namespace druba {

// Encode appends the state's bytes to `out`; Decode reads one state's bytes into `words` (the
// model's own width) and returns false when they do not make a state of this model.
template <class M>
concept DistributableModel = ExplorableModel<M> &&
    requires(M& model, StateView state, std::vector<std::uint8_t>& out,
             std::span<const std::uint8_t> bytes, std::vector<Word>& words) {
  model.Encode(state, out);
  { model.Decode(bytes, words) } -> std::convertible_to<bool>;
};

// Unsigned LEB128: 7 bits a byte, low bits first.
inline void PutVarint(std::uint64_t value, std::vector<std::uint8_t>& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

// Reads what PutVarint wrote from bytes[at..], moving `at` past it; false when the bytes end
// first or the number has more than 64 bits.
inline bool GetVarint(std::span<const std::uint8_t> bytes, std::size_t& at, std::uint64_t& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (at >= bytes.size()) return false;
    const std::uint8_t byte = bytes[at++];
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace druba
