// Validators the front ends and the command line share.
#pragma once

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

}  // namespace druba::front
