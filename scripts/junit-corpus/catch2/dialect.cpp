// Catch2 v2 single header (Debian bookworm's catch2 2.13): how its JUnit reporter writes [!mayfail] and [!shouldfail].
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

TEST_CASE("parses a number", "[parse]") {
  REQUIRE(std::stoi("42") == 42);
}

TEST_CASE("rounds half to even", "[round][!mayfail]") {
  // Known bug: tagged so the run stays green while it is open.
  CHECK(static_cast<int>(2.5 + 0.5) == 2);
}

TEST_CASE("rejects an empty config", "[config][!shouldfail]") {
  throw std::runtime_error("config loader not written yet");
}

TEST_CASE("may fail but passes", "[!mayfail]") {
  REQUIRE(1 + 1 == 2);
}

TEST_CASE("divides", "[math]") {
  REQUIRE(7 / 2 == 4);
}

TEST_CASE("should fail but passes", "[!shouldfail]") {
  // Catch2 counts this as a failure, but its JUnit report shows a plain pass.
  REQUIRE(2 * 2 == 4);
}
