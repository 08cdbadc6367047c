#include "invariants/weight_candidates.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/multiprecision/cpp_int.hpp>

#include "drb/ordered.h"

namespace druba::predabs {
namespace {

using Rational = boost::multiprecision::cpp_rational;

// Arithmetic modulo the Mersenne prime 2^31 - 1: whether a row is independent of the others is
// decided there (a row taken for dependent by chance only leaves it out; a candidate that the
// other rows make is still checked by Houdini), and the solution then exactly, from the
// independent rows alone.
constexpr std::uint64_t kPrime = (std::uint64_t{1} << 31) - 1;
constexpr std::int64_t kMaxWeight = 64;  // |weight| and |constant| in a candidate at most

std::uint64_t Mod(std::int64_t v) {
  const std::int64_t r = v % static_cast<std::int64_t>(kPrime);
  return static_cast<std::uint64_t>(r < 0 ? r + static_cast<std::int64_t>(kPrime) : r);
}
std::uint64_t MulMod(std::uint64_t a, std::uint64_t b) {
  return a * b % kPrime;
}
std::uint64_t SubMod(std::uint64_t a, std::uint64_t b) {
  return a >= b ? a - b : a + kPrime - b;
}
std::uint64_t PowMod(std::uint64_t a, std::uint64_t e) {
  std::uint64_t r = 1;
  for (; e > 0; e >>= 1, a = MulMod(a, a)) {
    if ((e & 1) != 0) r = MulMod(r, a);
  }
  return r;
}

}  // namespace

WeightReader::WeightReader(const Program& program)
    : program_(program), column_(program.statements.size() + 2, -1) {
  const Places places = PlacesOf(program);
  if (places.named.size() > kMaxWeightLocations) {
    off_ = true;
    return;
  }
  for (const std::uint32_t pc : places.named) {
    column_[pc] = static_cast<std::int32_t>(locations_.size());
    locations_.push_back(pc);
  }
  const drb::IdVariables ids = drb::IdHolders(program);
  const drb::IdVariables namers = drb::ThreadNamers(program);
  for (std::uint32_t v = 0; v < program.shared.size(); ++v) {
    const Variable& var = program.shared[v];
    if (var.type != Type::kBool && var.name.find('[') == std::string::npos && !ids.shared[v] &&
        !namers.shared[v] && !var.name.starts_with("__")) {
      counters_.push_back(v);
    }
  }
  off_ = counters_.empty();
  most_.assign(locations_.size(), 0);
}

bool WeightReader::Independent(const Row& row) {
  std::vector<std::uint64_t> r(row.size());
  for (std::size_t c = 0; c < row.size(); ++c) r[c] = Mod(row[c]);
  for (std::size_t k = 0; k < reduced_.size(); ++k) {
    const std::uint64_t f = r[pivots_[k]];
    if (f == 0) continue;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (reduced_[k][c] != 0) r[c] = SubMod(r[c], MulMod(f, reduced_[k][c]));
    }
  }
  const auto pivot = std::find_if(r.begin(), r.end(), [](std::uint64_t x) { return x != 0; });
  if (pivot == r.end()) return false;
  const std::uint64_t inverse = PowMod(*pivot, kPrime - 2);
  for (std::uint64_t& x : r) x = MulMod(x, inverse);
  pivots_.push_back(static_cast<std::size_t>(pivot - r.begin()));
  reduced_.push_back(std::move(r));
  basis_rows_.push_back(row);
  return true;
}

void WeightReader::Record(const IntModel& m, StateView s) {
  if (off_ || rows_.size() >= kMaxWeightRows) return;
  Row row(locations_.size() + 1 + counters_.size(), 0);
  for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
    const std::int32_t c = column_[s[m.PcSlot(i)]];
    if (c >= 0) ++row[static_cast<std::size_t>(c)];
  }
  for (std::size_t c = 0; c < locations_.size(); ++c) most_[c] = std::max(most_[c], row[c]);
  row[locations_.size()] = 1;
  for (std::size_t x = 0; x < counters_.size(); ++x) {
    const Int value = m.values().Decode(s[counters_[x]]);
    if (value > Int(INT64_MAX / 2) || value < Int(INT64_MIN / 2)) {
      off_ = true;
      return;
    }
    row[locations_.size() + 1 + x] = static_cast<std::int64_t>(value);
  }
  if (!rows_.insert(row).second) return;
  Independent(row);
}

namespace {

// The integer weights over `unknowns` (columns of `rows`) that give each counter's column of
// `rows` (from `first_counter` on), one vector per counter, empty where no integral solution with
// weights within kMaxWeight exists: Gauss-Jordan over the rationals, the free unknowns 0.
std::vector<std::vector<std::int64_t>> Solve(const std::vector<std::vector<std::int64_t>>& rows,
                                             const std::vector<std::size_t>& unknowns,
                                             std::size_t first_counter, std::size_t counters) {
  const std::size_t n = unknowns.size();
  const std::size_t width = n + counters;
  std::vector<std::vector<Rational>> a;
  for (const std::vector<std::int64_t>& r : rows) {
    std::vector<Rational> line(width);
    for (std::size_t u = 0; u < n; ++u) line[u] = r[unknowns[u]];
    for (std::size_t x = 0; x < counters; ++x) line[n + x] = r[first_counter + x];
    a.push_back(std::move(line));
  }
  std::vector<std::size_t> pivot_of(n, a.size());  // the row whose pivot each unknown is
  std::size_t rank = 0;
  for (std::size_t u = 0; u < n && rank < a.size(); ++u) {
    std::size_t p = rank;
    while (p < a.size() && a[p][u] == 0) ++p;
    if (p == a.size()) continue;
    std::swap(a[p], a[rank]);
    const Rational head = a[rank][u];
    for (Rational& x : a[rank]) x /= head;
    for (std::size_t r = 0; r < a.size(); ++r) {
      if (r == rank || a[r][u] == 0) continue;
      const Rational f = a[r][u];
      for (std::size_t c = 0; c < width; ++c) a[r][c] -= f * a[rank][c];
    }
    pivot_of[u] = rank++;
  }
  std::vector<std::vector<std::int64_t>> out(counters);
  for (std::size_t x = 0; x < counters; ++x) {
    // Consistent when no row without a pivot asks for a value.
    bool solved = true;
    for (std::size_t r = rank; r < a.size(); ++r) solved = solved && a[r][n + x] == 0;
    std::vector<std::int64_t> weight(n, 0);
    for (std::size_t u = 0; u < n && solved; ++u) {
      if (pivot_of[u] == a.size()) continue;
      const Rational& w = a[pivot_of[u]][n + x];
      solved = boost::multiprecision::denominator(w) == 1 && abs(w) <= kMaxWeight;
      if (solved) weight[u] = static_cast<std::int64_t>(boost::multiprecision::numerator(w));
    }
    if (solved) out[x] = std::move(weight);
  }
  return out;
}

// `terms` (weight, location) as a sum with `constant`, one count per weight, over every location
// of that weight: each count is a term the every-count encoding tracks through each step, and
// fewer of them keep its queries small.
std::string SumText(const std::string& j, std::int64_t constant,
                    const std::vector<std::pair<std::int64_t, std::string>>& terms) {
  std::map<std::int64_t, std::vector<std::string>> by_weight;
  for (const auto& [w, label] : terms)
    by_weight[w].push_back(fmt::format("pc[{}] == {}", j, label));
  std::string sum = constant != 0 ? std::to_string(constant) : "";
  for (auto it = by_weight.rbegin(); it != by_weight.rend(); ++it) {
    const std::int64_t w = it->first;
    const std::string term = fmt::format("count({}: {})", j, fmt::join(it->second, " || "));
    sum += sum.empty() ? (w < 0 ? "0 - " : "") : (w < 0 ? " - " : " + ");
    sum += std::abs(w) == 1 ? term : fmt::format("{} * {}", std::abs(w), term);
  }
  return sum;
}

}  // namespace

void WeightReader::Candidates(const Places& places, std::vector<std::string>& out) const {
  if (off_ || basis_rows_.empty()) return;
  // The unknowns: each location some independent row has a thread at, and the constant.
  std::vector<std::size_t> unknowns;
  for (std::size_t c = 0; c <= locations_.size(); ++c) {
    if (std::any_of(basis_rows_.begin(), basis_rows_.end(),
                    [&](const Row& r) { return r[c] != 0; })) {
      unknowns.push_back(c);
    }
  }
  const std::vector<std::vector<std::int64_t>> weights =
      Solve(basis_rows_, unknowns, locations_.size() + 1, counters_.size());
  for (std::size_t x = 0; x < counters_.size(); ++x) {
    const std::vector<std::int64_t>& weight = weights[x];
    if (weight.empty()) continue;
    std::int64_t constant = 0;
    std::vector<std::pair<std::int64_t, std::string>> terms;
    // A counter with a largest value (C's unsigned int) cannot count the threads at a location
    // where more than one may stand: with enough threads it would pass that value (SV-COMP's
    // 01_inc stops short of it). The solver would need a model of 2^32 threads to say so, and
    // seldom finds one within its work.
    bool grows = false;
    for (std::size_t u = 0; u < unknowns.size(); ++u) {
      if (weight[u] == 0) continue;
      if (unknowns[u] == locations_.size()) {
        constant = weight[u];
        continue;
      }
      terms.emplace_back(weight[u], program_.PcName(locations_[unknowns[u]]));
      grows = grows || (weight[u] > 0 && most_[unknowns[u]] > 1);
    }
    const Variable& var = program_.shared[counters_[x]];
    // None for a constant: the values read off each location say it.
    if (terms.empty() || (var.upper && grows)) continue;
    out.push_back(fmt::format("{} == {}", var.name, SumText(places.j, constant, terms)));
  }
}

}  // namespace druba::predabs
