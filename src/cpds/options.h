// The options of a CPDS (.pds) run beside the kind-free request (run/options.h).
#pragma once

#include <cstdint>
#include <string>

namespace druba::cpds {

struct CpdsOptions {
  std::string init;                  // default: the model's path with .init
  std::string spec;                  // a .spec file naming the target
  std::string target;                // or the target inline, 'g|t0,t1,...'
  std::uint32_t top = 1;             // K of the top-K abstraction
  bool top_given = false;            // check: --top was given, to be compared with the certificate
  std::uint32_t max_stack = 64;      // explicit: a deeper stack ends the search with `unknown`
  double upper_bound_share = 0.125;  // O's share of the exploration's successor calls
};

}  // namespace druba::cpds
