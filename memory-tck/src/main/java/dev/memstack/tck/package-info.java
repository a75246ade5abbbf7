/** The provider compatibility kit: abstract tests every memory provider runs, and test doubles. */
package dev.memstack.tck;
