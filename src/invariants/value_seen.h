// What the finite instances showed of one variable at a location (instance_candidates.cc): its
// values, bounds, and how they compare with the viewing thread's id and the thread count.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>

#include "drb/ast.h"

namespace druba::predabs::instance_detail {

constexpr std::size_t kMaxValues = 4;  // values listed in one candidate
constexpr std::size_t kTopCounts = 9;  // counts whose largest values Seen tells apart

// Whether the largest values seen at each thread count n (`top[n]`, none where that count was not
// explored) grow with the count one for one, at two counts or more: a filter lock's level reaches
// n - 2 at n threads. Seen::Grows, RankReader::Level.
inline bool GrowsWithCount(std::span<const std::optional<std::int64_t>> top) {
  std::optional<std::int64_t> gap;
  int counts = 0;
  for (std::size_t n = 0; n < top.size(); ++n) {
    if (!top[n]) continue;
    const std::int64_t g = *top[n] - static_cast<std::int64_t>(n);
    if (gap && *gap != g) return false;
    gap = g;
    ++counts;
  }
  return counts >= 2;
}

// A variable the candidates name: a shared one (any thread sees the one copy) or one of the
// per-thread ones (`v[self]`), with the values and the order against the viewing thread's id
// seen at each location.
struct Seen {
  std::set<std::int64_t> values;
  bool many = false;  // more than kMaxValues values, or one beyond int64
  bool below = false, equal = false, above = false;  // the value against the viewer's id
  std::optional<std::int64_t> lo, hi;                // the least and largest value
  bool unbounded = false;                            // a value beyond int64
  bool id_like = true;      // every value within -1 .. n at n threads (an id, none, or the count)
  bool below_count = true;  // every value below n at n threads
  bool from_count = true;   // every value n or above at n threads
  bool below_last = true;   // every value below n - 1 (a level below the last, in a filter lock)
  bool from_last = true;    // every value n - 1 or above
  // The largest value at each count up to kTopCounts - 1.
  std::array<std::optional<std::int64_t>, kTopCounts> top;

  // The largest value grows with the count, one for one, at two counts or more (a level in a
  // filter lock): a bound or a list of values read off them says nothing of larger counts.
  bool Grows() const { return GrowsWithCount(top); }

  void Add(const Int& value, std::uint32_t self, std::uint32_t n) {
    id_like = id_like && value >= -1 && value <= n;
    below_count = below_count && value < n;
    from_count = from_count && value >= n;
    below_last = below_last && value < n - 1;
    from_last = from_last && value >= n - 1;
    const int order = value < self ? -1 : value == self ? 0 : 1;
    below = below || order < 0;
    equal = equal || order == 0;
    above = above || order > 0;
    if (value > Int(INT64_MAX) || value < Int(INT64_MIN)) {
      many = unbounded = true;
      return;
    }
    const auto v = static_cast<std::int64_t>(value);
    lo = std::min(lo.value_or(v), v);
    hi = std::max(hi.value_or(v), v);
    if (n < top.size()) top[n] = std::max(top[n].value_or(v), v);
    if (many) return;
    values.insert(v);
    many = values.size() > kMaxValues;
  }
  void Merge(const Seen& o) {
    below = below || o.below;
    equal = equal || o.equal;
    above = above || o.above;
    many = many || o.many;
    unbounded = unbounded || o.unbounded;
    id_like = id_like && o.id_like;
    below_count = below_count && o.below_count;
    from_count = from_count && o.from_count;
    below_last = below_last && o.below_last;
    from_last = from_last && o.from_last;
    if (o.lo) lo = std::min(lo.value_or(*o.lo), *o.lo);
    if (o.hi) hi = std::max(hi.value_or(*o.hi), *o.hi);
    for (std::size_t n = 0; n < top.size(); ++n) {
      if (o.top[n]) top[n] = std::max(top[n].value_or(*o.top[n]), *o.top[n]);
    }
    values.insert(o.values.begin(), o.values.end());
    many = many || values.size() > kMaxValues;
  }
};

}  // namespace druba::predabs::instance_detail
