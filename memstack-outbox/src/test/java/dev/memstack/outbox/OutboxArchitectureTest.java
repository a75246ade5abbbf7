package dev.memstack.outbox;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The outbox module stands on its own: no Spring, no host. */
class OutboxArchitectureTest {

  private static final JavaClasses OUTBOX =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.memstack.outbox");

  @Test
  void theOutboxUsesNeitherSpringNorTheHost() {
    noClasses()
        .that()
        .resideInAPackage("dev.memstack.outbox..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..", "dev.memstack.host..")
        .check(OUTBOX);
  }

  @Test
  void journalsDoNotDependOnTheEngine() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.memstack.outbox.journal..", "dev.memstack.outbox.postgres..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.memstack.outbox")
        .check(OUTBOX);
  }
}
