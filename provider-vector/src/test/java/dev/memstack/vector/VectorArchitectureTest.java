package dev.memstack.vector;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The plugin uses the host only through the SPI: of the project, just spi, support and itself. */
class VectorArchitectureTest {

  private final JavaClasses main =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.memstack.vector");

  @Test
  void neverDependsOnTheHost() {
    noClasses().should().dependOnClassesThat().resideInAPackage("dev.memstack.host..").check(main);
  }

  @Test
  void ofTheProjectUsesOnlySpiSupportAndItself() {
    classes()
        .should()
        .onlyDependOnClassesThat(
            resideOutsideOfPackage("dev.memstack..")
                .or(
                    resideInAnyPackage(
                        "dev.memstack.spi..", "dev.memstack.support..", "dev.memstack.vector..")))
        .check(main);
  }
}
