#include "cpds/certificate.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

#include <fmt/format.h>

namespace druba::cpds {
namespace {

long long Number(std::uint32_t word) {
  return word == MayLieBelow::kBottom ? -1 : static_cast<long long>(word);
}

template <class Rows>
void WriteRows(std::string& out, const char* name, const Rows& rows) {
  auto to = std::back_inserter(out);
  fmt::format_to(to, ",\n\"{}\": [", name);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += i == 0 ? "\n [" : ",\n [";
    for (std::size_t j = 0; j < rows[i].size(); ++j) {
      fmt::format_to(to, "{}{}", j == 0 ? "" : ",", Number(rows[i][j]));
    }
    out += "]";
  }
  out += "\n]";
}

}  // namespace

std::string CertificateText(const CertificateFacts& facts) {
  std::string out = fmt::format(
      "{{\"druba_certificate\": 1, \"kind\": \"cpds top-k\", \"digest\": \"{}\", \"k\": {}, "
      "\"threads\": {}, \"deadlock\": {}, \"target\": {}, \"proof\": \"{}\"",
      facts.digest, facts.k, facts.threads, facts.deadlock, facts.target, facts.proof);
  std::vector<std::vector<Word>> states;
  states.reserve(facts.set->size());
  for (std::uint32_t id = 0; id < facts.set->size(); ++id) {
    const StateView a = facts.set->Get(id);
    states.emplace_back(a.begin(), a.end());
  }
  std::sort(states.begin(), states.end());
  WriteRows(out, "abstract_states", states);
  std::vector<std::array<std::uint32_t, 4>> top;
  std::vector<std::array<std::uint32_t, 3>> deep;
  facts.below->ForEachFact(
      [&](std::uint32_t t, Shared g, Symbol x, Symbol y) {
        top.push_back({t, g, x, y});
      },
      [&](std::uint32_t t, Symbol u, Symbol v) {
        deep.push_back({t, u, v});
      });
  std::sort(top.begin(), top.end());
  std::sort(deep.begin(), deep.end());
  WriteRows(out, "below_top", top);
  WriteRows(out, "below_deep", deep);
  return out + "\n}\n";
}

}  // namespace druba::cpds
