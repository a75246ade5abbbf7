package dev.memstack.tck;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The plugin boundary, for a plugin's own test to extend: the plugin's main classes use the host
 * only through the SPI — of the project, just {@code dev.memstack.spi}, {@code
 * dev.memstack.support} and the plugin's own package — and never a class of the host. A plugin that
 * reaches past the SPI breaks under PF4J's class loaders (see the guide's class-loading section).
 *
 * <pre>{@code
 * class NotesArchitectureTest extends PluginArchitectureContract {
 *   NotesArchitectureTest() { super("dev.memstack.notes"); }
 * }
 * }</pre>
 */
public abstract class PluginArchitectureContract {

  private final String pluginPackage;
  private final JavaClasses main;

  /**
   * @param pluginPackage the plugin's root package, e.g. {@code dev.memstack.notes}
   */
  protected PluginArchitectureContract(String pluginPackage) {
    this.pluginPackage = pluginPackage;
    this.main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(pluginPackage);
  }

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
                        "dev.memstack.spi..", "dev.memstack.support..", pluginPackage + "..")))
        .check(main);
  }
}
