/** Test-scope fixtures every module's tests share: the throwaway PostgreSQL database. */
package dev.memstack.testing;
