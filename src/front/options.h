// Validators the front ends and the command line share.
#pragma once

#include <cmath>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

namespace druba::front {

// An empty value (an unset shell variable) would turn a property check into a proof.
inline const CLI::Validator& NotEmpty() {
  static const CLI::Validator validator(
      [](const std::string& value) { return value.empty() ? std::string("it is empty") : ""; }, "",
      "not empty");
  return validator;
}

// A limit (--time-limit, --memory-limit): a finite number >= 0 (NaN passes a plain >= 0 check).
inline const CLI::Validator& Limit() {
  static const CLI::Validator validator(
      [](const std::string& value) {
        try {
          const double v = std::stod(value);
          return std::isfinite(v) && v >= 0 ? std::string() : "expects a finite number >= 0";
        } catch (const std::exception&) {
          return std::string("expects a number");
        }
      },
      "", "limit");
  return validator;
}

}  // namespace druba::front
