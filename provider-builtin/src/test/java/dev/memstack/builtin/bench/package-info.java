/** Benchmarks of the builtin provider; not run by the test command (see BuiltinBenchmark). */
package dev.memstack.builtin.bench;
