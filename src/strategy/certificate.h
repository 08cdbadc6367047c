// The certificates of a `.drb` `safe` at one thread count or for every count
// (docs/certificates.md): of the predicates kind, the abstraction, as a block the checker parses,
// and the abstract set it proved inductive; of the explicit kind, every state an exhaustive search
// reached. Their states are written sorted, so that neither the order in which a search met them
// nor the process that held them (druba-mpi) changes the text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "explore/state_store.h"
#include "interp/model.h"
#include "interp/program.h"
#include "refine/refine.h"
#include "run/report.h"

namespace druba::predabs {

// What a certificate of the predicates kind says (docs/certificates.md).
struct PredicatesFacts {
  std::string digest;
  std::uint32_t threads = 0;
  bool every_count = false;  // for every thread count >= threads
  bool deadlock = false;
  std::string proof;
  const Program* program = nullptr;
  const AbstractionSpec* spec = nullptr;
  const StateStore* set = nullptr;  // the abstract states
};

// "[1,0,3]" rows, sorted, joined as the elements of a JSON array one per line.
inline std::string SortedRows(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const std::string& row : rows) out += (out.empty() ? "\n " : ",\n ") + row;
  return out;
}

inline std::string PredicatesCertificate(const PredicatesFacts& f) {
  std::vector<std::string> rows;
  for (std::uint32_t id = 0; id < f.set->size(); ++id) {
    const StateView a = f.set->Get(id);
    std::string row = "[";
    for (std::size_t i = 0; i < a.size(); ++i) row += (i == 0 ? "" : ",") + std::to_string(a[i]);
    rows.push_back(row + "]");
  }
  const std::string states = SortedRows(std::move(rows));
  run::Json head = {{"druba_certificate", 1},
                    {"kind", "drb predicates"},
                    {"digest", f.digest},
                    {"threads", f.threads},
                    {"proof", f.proof},
                    {"deadlock", f.deadlock},
                    {"abstraction", AbstractionBlock(*f.program, *f.spec, "druba_certificate")}};
  if (f.every_count) head["every_count"] = true;
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the states follow
  return text + ",\n\"abstract_states\": [" + states + "\n]}\n";
}

// One state of an explicit certificate, as the checker reads it: each shared variable's value,
// then each thread's location, locals and pair values. A value beyond 64 bits makes *fits false.
inline std::string ExplicitRow(const Program& program, const IntModel& model, StateView s,
                               bool* fits) {
  const auto value = [&](Word w) {
    const Int v = model.values().Decode(w);
    *fits = *fits && v <= INT64_MAX && v >= INT64_MIN;
    return v.str();
  };
  std::string row;
  for (std::size_t v = 0; v < program.shared.size(); ++v) row += "," + value(s[v]);
  for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
    row += "," + std::to_string(s[model.PcSlot(t)]);
    for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
      row += "," + value(s[model.LocalSlot(t, v)]);
    }
    for (std::uint32_t a = 0; a < program.pairs.size(); ++a) {
      for (std::uint32_t c = 0; c < model.num_threads(); ++c) {
        row += "," + value(s[model.PairSlot(t, a, c)]);
      }
    }
  }
  row[0] = '[';
  return row + "]";
}

// What an explicit certificate says besides its states.
struct ExplicitFacts {
  std::string digest;
  std::uint32_t threads = 0;
  bool deadlock = false;
  std::string proof;
  bool up_to_symmetry = false;  // one state per orbit ("symmetry": "threads")
};

inline std::string ExplicitCertificate(const ExplicitFacts& f, std::vector<std::string> rows) {
  const run::Json head = {{"druba_certificate", 1},
                          {"kind", "drb explicit"},
                          {"digest", f.digest},
                          {"threads", f.threads},
                          {"deadlock", f.deadlock},
                          {"proof", f.proof},
                          {"symmetry", f.up_to_symmetry ? "threads" : "none"}};
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the states follow
  return text + ",\n\"states\": [" + SortedRows(std::move(rows)) + "\n]}\n";
}

}  // namespace druba::predabs
