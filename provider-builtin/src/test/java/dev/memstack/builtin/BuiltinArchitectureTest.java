package dev.memstack.builtin;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.memstack.builtin.store.Stores;
import dev.memstack.tck.PluginArchitectureContract;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The plugin uses the host only through the SPI: of the project, just spi, support and itself.
 * Inside, storage is ports and adapters: the ports in {@code store}, the file/Lucene adapters in
 * {@code store.files}, the PostgreSQL adapters in {@code store.postgres}; neither adapter knows the
 * other, and only the one factory ({@link Stores}) knows either.
 */
// one instance, so the classes are imported once for every rule
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BuiltinArchitectureTest extends PluginArchitectureContract {

  private static final String STORE = "dev.memstack.builtin.store";
  private static final String FILES = STORE + ".files..";
  private static final String POSTGRES = STORE + ".postgres..";

  private final JavaClasses main =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.memstack.builtin");

  BuiltinArchitectureTest() {
    super("dev.memstack.builtin");
  }

  @Test
  @DisplayName("the file adapters never use the PostgreSQL adapters, nor the other way round")
  void adaptersNeverUseEachOther() {
    noClasses()
        .that()
        .resideInAPackage(FILES)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(POSTGRES)
        .check(main);
    noClasses()
        .that()
        .resideInAPackage(POSTGRES)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(FILES)
        .check(main);
  }

  @Test
  @DisplayName("the ports use no adapter, except the one factory that picks them")
  void portsUseNoAdapterButTheFactory() {
    noClasses()
        .that()
        .resideInAPackage(STORE)
        .and()
        .doNotBelongToAnyOf(Stores.class)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(FILES, POSTGRES)
        .check(main);
  }

  @Test
  @DisplayName("outside the store, nothing uses an adapter: only the ports")
  void theRestUsesOnlyThePorts() {
    noClasses()
        .that()
        .resideOutsideOfPackage(STORE + "..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(FILES, POSTGRES)
        .check(main);
  }
}
