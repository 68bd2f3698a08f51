package dev.rackwise;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The jar's layers (docs/architecture.md § Kafka's seams), checked on its compiled classes.
 *
 * <p>The cores decide, the adapters translate: a core sees no Kafka type and no plug-in class,
 * so the same problem can be stated once and tested without a broker; each adapter sits at one
 * of Kafka's plug-in points and never reaches into another's; and no package depends on itself
 * through others.
 */
@AnalyzeClasses(packages = "dev.rackwise", importOptions = LayersTest.MainClassesOnly.class)
class LayersTest {
    /** The jar's own classes: test classes may reach across packages, and `make plugins-test`
     * builds into target/kafka-VERSION/, which ArchUnit's DoNotIncludeTests does not recognise. */
    static final class MainClassesOnly implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("/test-classes/");
        }
    }

    private static final String[] OUTSIDE_A_CORE = {"org.apache.kafka..", "dev.rackwise.plugins.."};

    @ArchTest
    static final ArchRule consumerCoreSeesNoKafkaAndNoPlugin = noClasses()
        .that().resideInAPackage("dev.rackwise.core..")
        .should().dependOnClassesThat().resideInAnyPackage(OUTSIDE_A_CORE)
        .because("the rack-optimal core is Kafka-free: the adapters translate Kafka's inputs");

    @ArchTest
    static final ArchRule taskCoreSeesNoKafkaAndNoPlugin = noClasses()
        .that().resideInAPackage("dev.rackwise.tasks..")
        .should().dependOnClassesThat().resideInAnyPackage(OUTSIDE_A_CORE)
        .because("the Streams task core is Kafka-free like the consumer core")
        .allowEmptyShould(true);

    @ArchTest
    static final ArchRule brokerAdapterStandsAlone = adapterStandsAlone("broker", "classic", "streams");

    @ArchTest
    static final ArchRule classicAdapterStandsAlone = adapterStandsAlone("classic", "broker", "streams");

    @ArchTest
    static final ArchRule streamsAdapterStandsAlone = adapterStandsAlone("streams", "broker", "classic");

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("dev.rackwise.(**)")
        .should().beFreeOfCycles();

    private static ArchRule adapterStandsAlone(String adapter, String... others) {
        String[] packages = new String[others.length];
        for (int i = 0; i < others.length; i++) {
            packages[i] = "dev.rackwise.plugins." + others[i] + "..";
        }
        return noClasses()
            .that().resideInAPackage("dev.rackwise.plugins." + adapter + "..")
            .should().dependOnClassesThat().resideInAnyPackage(packages)
            .because("each adapter sits at one of Kafka's plug-in points and shares only common parts");
    }
}
