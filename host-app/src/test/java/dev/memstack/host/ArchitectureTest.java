package dev.memstack.host;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The host's architecture: it never uses a plugin's classes, its packages have no cycles, and the
 * call path ({@code provider}), the outbox, the stack and the plugin manager stay below the REST
 * API and the jobs.
 */
class ArchitectureTest {

  private static final String HOST = "dev.memstack.host";

  private static JavaClasses host;

  @BeforeAll
  static void importHost() {
    host =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(HOST);
  }

  private static String pkg(String name) {
    return HOST + "." + name + "..";
  }

  @Test
  void hostNeverDependsOnAPlugin() {
    noClasses()
        .that()
        .resideInAPackage(HOST + "..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.memstack.builtin..",
            "dev.memstack.vector..",
            "dev.memstack.mem0..",
            "dev.memstack.notes..")
        .check(host);
  }

  @Test
  void hostPackagesAreFreeOfCycles() {
    slices().matching(HOST + ".(*)..").should().beFreeOfCycles().check(host);
  }

  /**
   * The call path ({@code provider}) stays below everything else; the outbox, the stack, the plugin
   * manager and the security below the REST API and the jobs.
   */
  @ParameterizedTest(name = "{0} does not depend on {1}")
  @CsvSource({
    "provider, stack outbox api jobs conversation",
    "outbox, stack api jobs",
    "stack, api jobs",
    "plugin, api outbox",
    "security, api"
  })
  void aPackageDoesNotDependOnThePackagesAboveIt(String below, String above) {
    noClasses()
        .that()
        .resideInAPackage(pkg(below))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            Arrays.stream(above.split(" ")).map(ArchitectureTest::pkg).toArray(String[]::new))
        .check(host);
  }

  /**
   * Of the stack, the plugin manager uses only the system prompt cache, which a provider's context
   * invalidates after a write.
   */
  @Test
  void pluginManagerUsesOnlyTheStacksPromptCache() {
    noClasses()
        .that()
        .resideInAPackage(pkg("plugin"))
        .should()
        .dependOnClassesThat(
            resideInAPackage(pkg("stack")).and(not(name(HOST + ".stack.SystemPromptCache"))))
        .check(host);
  }
}
