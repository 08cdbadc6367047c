// The certificate of a `.drb` `safe` of the predicates kind (docs/certificates.md): the
// abstraction, as a block the checker parses, and the abstract set it proved inductive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "explore/state_store.h"
#include "predabs/program.h"
#include "predabs/refine.h"
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

inline std::string PredicatesCertificate(const PredicatesFacts& f) {
  std::string states;
  for (std::uint32_t id = 0; id < f.set->size(); ++id) {
    const StateView a = f.set->Get(id);
    states += id == 0 ? "\n [" : ",\n [";
    for (std::size_t i = 0; i < a.size(); ++i) states += (i == 0 ? "" : ",") + std::to_string(a[i]);
    states += "]";
  }
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

}  // namespace druba::predabs
