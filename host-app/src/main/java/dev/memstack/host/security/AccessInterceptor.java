package dev.memstack.host.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Enforces {@link RequiresRole} on every {@code /api/**} handler before its arguments are read, so
 * a caller without the role gets {@code 403} whatever the body holds. A handler without the
 * annotation is refused for everyone (and logged): a route nobody gave a rule is closed, not open.
 * With checking off the caller is an admin and every route passes.
 */
final class AccessInterceptor implements HandlerInterceptor {

  private static final Logger log = LoggerFactory.getLogger(AccessInterceptor.class);

  @Override
  public boolean preHandle(
      HttpServletRequest request, HttpServletResponse response, Object handler) {
    if (!(handler instanceof HandlerMethod method)) {
      return true;
    }
    Caller caller = AccessPolicy.callerOf(request);
    RequiresRole rule = rule(method);
    if (rule == null) {
      if (caller.equals(Caller.unchecked())) {
        return true;
      }
      log.error(
          "{}.{} has no @RequiresRole; refusing it for every token",
          method.getBeanType().getSimpleName(),
          method.getMethod().getName());
      throw new AccessDeniedException("this route has no access rule, so the host refuses it");
    }
    AccessPolicy.requireRole(caller, rule.value());
    return true;
  }

  /** The rule of a handler: on its method, else on its controller class. */
  static RequiresRole rule(HandlerMethod method) {
    RequiresRole onMethod = method.getMethodAnnotation(RequiresRole.class);
    return onMethod != null
        ? onMethod
        : AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), RequiresRole.class);
  }
}
