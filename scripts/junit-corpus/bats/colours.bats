#!/usr/bin/env bats

@test "prints a green banner and passes" {
  printf '\033[32mready\033[0m\n'
}

@test "diff output in red fails" {
  run printf '\033[31m- expected\033[0m\n\033[32m+ actual\033[0m\n'
  echo "$output"
  [ "$status" -eq 1 ]
}
