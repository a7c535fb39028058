import { Body, Controller, Get, HttpCode, Post, Put, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { decode } from 'jsonwebtoken';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import type { Request } from '../common/request';
import { JwtAuth, Public } from './auth.decorators';
import { AuthService } from './auth.service';
import { Actor, CurrentActor, CurrentPrincipal } from './current-principal.decorator';
import { ChangePasswordDto, LoginDto, TokenResponseDto } from './dto/login.dto';
import { MeDto } from './dto/me.dto';
import type { UserPrincipal } from './principal';

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange email and password for a JWT',
    description: 'Limited per client IP (30/min) and to 10 failures per email per 15 minutes.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed' })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description: 'invalid_credentials — unknown email or wrong password (same answer for both)',
  })
  login(@Body() dto: LoginDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.auth.login(dto.email, dto.password, { requestId: req.id, ip: req.ip });
  }

  @Get('me')
  @JwtAuth()
  @ApiOperation({ summary: 'The caller: user, role, account and plan' })
  @ApiOkResponse({ type: MeDto })
  me(@CurrentPrincipal() user: UserPrincipal): Promise<MeDto> {
    return this.auth.me(user);
  }

  @Post('logout')
  @JwtAuth()
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out: this token is refused from the next request on, on every instance' })
  @ApiNoContentResponse({ description: 'Signed out.' })
  logout(@CurrentActor() actor: Actor, @Req() req: Request): Promise<void> {
    // The guard verified the token; its id and expiry are read back from it.
    const token = /^bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')![1]!;
    const { jti, exp } = decode(token, { json: true }) as { jti: string; exp: number };
    return this.auth.logout(actor, { jti, exp });
  }

  @Put('password')
  @JwtAuth()
  @ApiOperation({ summary: 'Change the password; every older token stops working, the answer carries a new one' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — wrong current password or a new one that breaks the policy',
  })
  changePassword(@CurrentActor() actor: Actor, @Body() dto: ChangePasswordDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.auth.changePassword(actor, dto.currentPassword, dto.newPassword, req.ip);
  }
}
