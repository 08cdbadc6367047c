// States that travel between processes (the distributed search, src/distributed): a model kind
// whose state words name entries of tables of its own (CPDS stack ids, interned big integers)
// writes a state as self-contained bytes, and a process reads them back into words of its own
// tables. Equal states give equal bytes, so a hash of the bytes names the same owner everywhere.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "explore/canonical.h"
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

// A model whose threads may be interchangeable (explore/canonical.h) also writes the canonical
// bytes of a state: the same for every state of one orbit of `symmetry`, and the bytes of a state
// of that orbit (so that the hash of the orbit names one owner everywhere, and the owner reads a
// state of it). The canonical form of explore/canonical.h orders components by words, which may
// be ids of one process's tables; these order them by bytes.
template <class M>
concept OrbitModel = DistributableModel<M> &&
    requires(M& model, StateView state, const ThreadSymmetry& symmetry,
             std::vector<std::uint8_t>& out) {
  model.EncodeCanonical(state, symmetry, out);
};

// For a state written as a head and then one part per thread (thread t's part ends at ends[t]):
// appends to `out` the head and the parts with those of each class of `symmetry` in byte order.
inline void AppendSortedParts(std::span<const std::uint8_t> bytes, std::size_t head,
                              const std::vector<std::size_t>& ends, const ThreadSymmetry& symmetry,
                              std::vector<std::size_t>& order, std::vector<std::uint8_t>& out) {
  const auto part = [&](std::size_t t) {
    const std::size_t begin = t == 0 ? head : ends[t - 1];
    return bytes.subspan(begin, ends[t] - begin);
  };
  order.resize(ends.size());
  for (std::size_t t = 0; t < ends.size(); ++t) order[t] = t;
  for (const std::vector<std::uint32_t>& cls : symmetry.classes) {
    std::vector<std::size_t> members(cls.begin(), cls.end());
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      const auto x = part(a);
      const auto y = part(b);
      return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
    });
    for (std::size_t i = 0; i < cls.size(); ++i) order[cls[i]] = members[i];
  }
  out.insert(out.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(head));
  for (const std::size_t t : order) {
    const auto x = part(t);
    out.insert(out.end(), x.begin(), x.end());
  }
}

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
