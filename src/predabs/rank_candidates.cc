#include "predabs/rank_candidates.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "drb/ordered.h"

namespace druba::predabs {

RankReader::RankReader(const Program& program, const Places& places)
    : program_(program), places_(places) {
  const drb::IdVariables namers = drb::ThreadNamers(program);
  const drb::IdVariables ids = drb::IdHolders(program);
  for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
    const Variable& var = program.locals[v];
    if (var.name.find('[') != std::string::npos || var.type == Type::kBool) continue;
    if (!ids.locals[v] && !namers.locals[v]) numbers_.push_back(v);
  }
  const std::vector<std::uint32_t>& named = places.named;
  sets_.push_back({});
  for (std::size_t a = 0; a < named.size(); ++a) {
    sets_.push_back({named[a]});
    for (std::size_t b = a + 1; b < named.size(); ++b) {
      sets_.push_back({std::min(named[a], named[b]), std::max(named[a], named[b])});
    }
  }
  excess_.assign(numbers_.size() * sets_.size(), std::numeric_limits<std::int64_t>::min());
  seen_any_.assign(numbers_.size(), false);
}

void RankReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  const std::uint32_t n = m.num_threads();
  const auto top = static_cast<std::int64_t>(n);
  for (std::size_t w = 0; w < numbers_.size(); ++w) {
    const auto first = excess_.begin() + static_cast<std::ptrdiff_t>(w * sets_.size());
    if (seen_any_[w] && std::all_of(first, first + static_cast<std::ptrdiff_t>(sets_.size()),
                                    [](std::int64_t e) { return e > 0; })) {
      continue;  // no set allows an offset: nothing more to learn about this variable
    }
    seen_any_[w] = true;
    // The state as this variable sees it: each thread's value and location, sorted. Below the
    // levels (0 .. n-1) every value compares with them as -1 does, above them as n does.
    std::vector<std::pair<std::int64_t, std::int64_t>> threads;
    for (std::uint32_t i = 0; i < n; ++i) {
      const Int x = values.Decode(s[m.LocalSlot(i, numbers_[w])]);
      const std::int64_t level = x < 0 ? -1 : x > top ? top : static_cast<std::int64_t>(x);
      threads.emplace_back(level, static_cast<std::int64_t>(s[m.PcSlot(i)]));
    }
    std::sort(threads.begin(), threads.end());
    std::vector<std::int64_t> key{static_cast<std::int64_t>(w), top};
    for (const auto& [x, pc] : threads) {
      key.push_back(x);
      key.push_back(pc);
    }
    if (!done_.insert(std::move(key)).second) continue;
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      const std::vector<std::uint32_t>& set = sets_[k];
      std::int64_t& most = excess_[w * sets_.size() + k];
      for (std::int64_t j = 0; j < top; ++j) {
        std::int64_t count = 0;
        for (const auto& [x, pc] : threads) {
          const bool out =
              std::find(set.begin(), set.end(), static_cast<std::uint32_t>(pc)) != set.end();
          count += x > j || (x >= j && !out) ? 1 : 0;
        }
        most = std::max(most, count - (top - j));
      }
    }
  }
}

void RankReader::Candidates(std::vector<std::string>& out) const {
  const std::string& j = places_.j;
  const std::string i = places_.k;
  for (std::size_t w = 0; w < numbers_.size(); ++w) {
    if (!seen_any_[w]) continue;
    const std::string& x = program_.locals[numbers_[w]].name;
    // The offset each set allows: -1, 0, or none (1).
    const auto offset = [&](std::size_t k) -> std::int64_t {
      const std::int64_t e = excess_[w * sets_.size() + k];
      return e <= -1 ? -1 : e <= 0 ? 0 : 1;
    };
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      const std::int64_t c = offset(k);
      if (c > 0) continue;
      // Left out where a subset of this set allows as small an offset.
      bool implied = false;
      for (std::size_t l = 0; l < sets_.size() && !implied; ++l) {
        if (l == k || offset(l) > c) continue;
        implied = std::includes(sets_[k].begin(), sets_[k].end(), sets_[l].begin(), sets_[l].end());
      }
      if (implied) continue;
      std::string past = fmt::format("{0}[{1}] >= {2}", x, i, j);
      for (const std::uint32_t pc : sets_[k]) {
        past += fmt::format(" && pc[{}] != {}", i, *LabelOf(program_, pc));
      }
      out.push_back(
          fmt::format("forall {0}: count({1}: {2}[{1}] > {0} || {3}) <= count({1}: true){4} - {0}",
                      j, i, x, past, c < 0 ? " - 1" : ""));
    }
  }
}

}  // namespace druba::predabs
