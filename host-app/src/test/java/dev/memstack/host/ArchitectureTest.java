package dev.memstack.host;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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

  @Test
  void callPathStaysBelowEverythingElse() {
    noClasses()
        .that()
        .resideInAPackage(pkg("provider"))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            pkg("stack"), pkg("outbox"), pkg("api"), pkg("jobs"), pkg("conversation"))
        .check(host);
  }

  @Test
  void outboxDoesNotDependOnStackApiOrJobs() {
    noClasses()
        .that()
        .resideInAPackage(pkg("outbox"))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(pkg("stack"), pkg("api"), pkg("jobs"))
        .check(host);
  }

  @Test
  void stackDoesNotDependOnApiOrJobs() {
    noClasses()
        .that()
        .resideInAPackage(pkg("stack"))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(pkg("api"), pkg("jobs"))
        .check(host);
  }

  @Test
  void pluginManagerDoesNotDependOnApiOrOutbox() {
    noClasses()
        .that()
        .resideInAPackage(pkg("plugin"))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(pkg("api"), pkg("outbox"))
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

  @Test
  void securityDoesNotDependOnApi() {
    noClasses()
        .that()
        .resideInAPackage(pkg("security"))
        .should()
        .dependOnClassesThat()
        .resideInAPackage(pkg("api"))
        .check(host);
  }
}
