package dev.memstack.host;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.memstack.spi.Turn;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.RestController;

/**
 * The host's architecture: it never uses a plugin's classes, its packages have no cycles, the call
 * path ({@code provider}), the outbox, the stack and the plugin manager stay below the REST API and
 * the jobs, and the stack is the one application API: the adapters (REST controllers, MCP tools)
 * call it and never each other, and only the stack (and the outbox's journal codecs) build the
 * SPI's {@link Turn}.
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
    "stack, api jobs chat",
    "chat, api",
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

  /**
   * A {@link Turn} is built once, by the stack from a checked request; the outbox rebuilds the
   * turns it stored (its journal codecs, in the host or in module {@code memstack-outbox}).
   */
  @Test
  void onlyTheStackAndTheOutboxBuildTurns() {
    noClasses()
        .that()
        .resideOutsideOfPackages(pkg("stack"), pkg("outbox"), "dev.memstack.outbox..")
        .should()
        .callConstructorWhere(target(owner(type(Turn.class))))
        .because("the stack builds the one Turn of a request; adapters hand it a TurnRequest")
        .check(host);
  }

  /** The stack is below its adapters: it never uses a REST controller or the REST package. */
  @Test
  void theStackNeverUsesAController() {
    noClasses()
        .that()
        .resideInAPackage(pkg("stack"))
        .should()
        .dependOnClassesThat()
        .areAnnotatedWith(RestController.class)
        .orShould()
        .dependOnClassesThat()
        .areAnnotatedWith(Controller.class)
        .orShould()
        .dependOnClassesThat()
        .resideInAPackage(pkg("api"))
        .check(host);
  }

  /** The MCP tools are an adapter beside the REST routes: they call the stack, not a controller. */
  @Test
  void mcpHandlersNeverUseAController() {
    noClasses()
        .that()
        .resideInAPackage(pkg("mcp"))
        .should()
        .dependOnClassesThat()
        .areAnnotatedWith(RestController.class)
        .orShould()
        .dependOnClassesThat()
        .areAnnotatedWith(Controller.class)
        .check(host);
  }
}
